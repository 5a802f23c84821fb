import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientTypes, workingTreeCatalog } from './client-types';

const clientEntry = fileURLToPath(new URL('../../../packages/client/src/index.ts', import.meta.url));

/** A product's code using the client, with the generated declaration beside it. */
const consumer = `import { createClient } from '@waymark/client';

const waymark = createClient({ apiKey: 'wm_test', baseUrl: 'https://waymark.example.com' });

export async function calls() {
  await waymark.track('trial.started', { userId: 'u1', properties: { plan: 'pro' } });
  await waymark.track('user.signed_up', { email: 'ada@example.com' });
  // an event outside the catalog takes any properties, as the api does
  await waymark.track('page.viewed', { userId: 'u1', properties: { path: '/' } });
  await waymark.sendEmail('order-receipt', { to: 'ada@example.com', data: { orderId: 'A-1', items: [{ name: 'Pro', quantity: 1, price: 29 }] } });
  await waymark.sendEmail('welcome', { to: 'ada@example.com' });

  // @ts-expect-error plan is one of free, pro, team
  await waymark.track('trial.started', { userId: 'u1', properties: { plan: 'enterprise' } });
  // @ts-expect-error trial.started requires its properties
  await waymark.track('trial.started', { userId: 'u1' });
  // @ts-expect-error neither userId nor email
  await waymark.track('page.viewed', { properties: {} });
  // @ts-expect-error quantity is a number
  await waymark.sendEmail('order-receipt', { to: 'ada@example.com', data: { orderId: 'A-1', items: [{ name: 'Pro', quantity: 'one', price: 29 }] } });
  // @ts-expect-error orderId is required
  await waymark.sendEmail('order-receipt', { to: 'ada@example.com', data: { items: [{ name: 'Pro', quantity: 1, price: 29 }] } });
  await waymark.batch((batch) => {
    // @ts-expect-error batch checks the same way
    batch.track('trial.started', { userId: 'u1', properties: { plan: 'enterprise' } });
  });
}
`;

const options: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  types: [],
  // the standard library needs no checking here; the generated declaration and the client do
  skipDefaultLibCheck: true,
  paths: { '@waymark/client': [clientEntry] },
};
// the standard library's files parsed once for the three programs (most of a compile's time)
const host = ts.createCompilerHost(options);
const parsed = new Map<string, ts.SourceFile | undefined>();
const getSourceFile = host.getSourceFile.bind(host);
host.getSourceFile = (fileName, ...rest) => {
  if (!fileName.includes('/typescript/lib/')) return getSourceFile(fileName, ...rest);
  if (!parsed.has(fileName)) parsed.set(fileName, getSourceFile(fileName, ...rest));
  return parsed.get(fileName);
};

function diagnostics(dir: string, files: string[]): string[] {
  const program = ts.createProgram(
    files.map((file) => path.join(dir, file)),
    options,
    host,
  );
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

// a TypeScript compile each: seconds, not milliseconds
describe('waymark client generate: the types it writes', { timeout: 120_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'waymark-client-types-'));
    writeFileSync(path.join(dir, 'waymark.d.ts'), await clientTypes(await workingTreeCatalog(), 'the test'));
    writeFileSync(path.join(dir, 'consumer.ts'), consumer);
    writeFileSync(path.join(dir, 'wrong.ts'), consumer.replaceAll('// @ts-expect-error', '//'));
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('with the generated declaration, good calls compile and each wrong property or template prop is an error', () => {
    // an unused @ts-expect-error is itself an error: none means every marked call failed to compile
    expect(diagnostics(dir, ['waymark.d.ts', 'consumer.ts'])).toEqual([]);
  });

  it('the errors name what is wrong', () => {
    const errors = diagnostics(dir, ['waymark.d.ts', 'wrong.ts']).join('\n');
    expect(errors).toContain(`Type '"enterprise"' is not assignable to type '"free" | "pro" | "team"'`);
    expect(errors).toContain(`Type 'string' is not assignable to type 'number'`);
    expect(errors).toContain(`Property 'orderId' is missing`);
  });

  it('without it, the client takes any event and template (names outside the catalog)', () => {
    const untyped = diagnostics(dir, ['consumer.ts']);
    expect(untyped.length).toBeGreaterThan(0);
    expect(untyped.every((message) => message === "Unused '@ts-expect-error' directive." || message.includes('userId'))).toBe(true);
  });
});
