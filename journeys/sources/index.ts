import type { Source } from '@waymark/sources';
import productBackend from './product-backend';

/**
 * This deployment's own webhook sources, served beside the built-in presets at
 * POST /v1/webhooks/{id}. Add one by importing its file here (docs/sources.md). Kept apart from
 * journeys/index.ts: sources run in the api only, never in the workflow bundle.
 */
export const sources: readonly Source[] = [productBackend];
