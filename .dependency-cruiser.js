/**
 * The second half of `npm run lint`: no two files may import each other, directly or round a
 * loop, with `import type` counted too (eslint's import-x/no-cycle skips type-only imports; its
 * zones in eslint.config.js hold the layer map). docs/contributing.md, "The layer map".
 * @type {import('dependency-cruiser').IConfiguration}
 */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Files that import each other cannot be understood, tested or moved apart: move the shared piece (often a type) into a file both import.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules', '\\.test\\.tsx?$', '(^|/)dist/', '^\\.data/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // follow @waymark/* through their package.json exports to the source files
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
