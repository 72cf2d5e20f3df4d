/**
 * Layer rules, checked by `npm test` (`npm run lint:layers`): no import cycle between folders, `src/common`
 * and `src/config` import no feature module, features never reach into the realtime surface.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'Folders depend on each other in one direction only.',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-file-cycles',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'common-is-a-base',
      severity: 'error',
      comment: 'Shared plumbing knows no feature.',
      from: { path: '^src/(common|config)/' },
      to: { path: '^src/(modules|realtime)/' },
    },
    {
      name: 'modules-do-not-use-realtime',
      severity: 'error',
      comment: 'The realtime surface depends on the features, not the reverse.',
      from: { path: '^src/modules/' },
      to: { path: '^src/realtime/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
