import { DefaultFailureConverter } from '@temporalio/common';

/**
 * The failure converter of every worker, workflow bundle and client (loaded by path:
 * `failureConverterPath()` in payload-codec.ts). A failure's message and stack go into its encoded
 * attributes, a payload the codec seals like any other, so an error that quotes a person's address
 * (a provider's answer, a database's duplicate key) is not kept in clear in Temporal's history
 * (docs/security.md, "What is kept secret, and where"). Reading a failure opens them again,
 * whether or not the reader encodes its own.
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
