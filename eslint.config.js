// ESLint over src, test, scripts, web and ormconfig.ts (`npm run lint`, with `prettier --check` for the layout).
// TypeScript files get typescript-eslint's recommended type-checked rules, typed through the project service: each
// file by its nearest tsconfig that includes it (web/src by web/tsconfig.json, the rest by tsconfig.json).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // Built, generated or left by runs: client/ is written by `npm run client:generate` and checked by its drift test.
  { ignores: ['dist/', 'client/', 'coverage/', 'test-artifacts/', 'data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A leading underscore drops a value on purpose: a field left out by rest destructuring
      // (`{ driver_id: _driver, ...event }`), a tuple slot, a parameter a signature must take.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Nest reads a parameter decorator's arguments (`@Query('ids', CARRIER_IDS)`) when it decorates the class, but
    // no-useless-assignment does not see that use and calls the constant's assignment useless
    // (https://github.com/eslint/eslint/issues/20947).
    files: ['src/**/*.controller.ts'],
    rules: { 'no-useless-assignment': 'off' },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests read answers as the wire gives them: supertest's `res.body`, socket acknowledgements and parsed
      // JSON are `any`, and the assertions (`expect(...).toEqual`) are what check their shape. Typing every
      // body first would restate the OpenAPI document in each test without checking anything more; for the
      // same reason a test may write a wire shape's loose parts as `any` (`data: Record<string, any>`).
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  // Plain JavaScript (test setup, small build scripts) is in no tsconfig: the recommended rules, without types.
  {
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: globals.node },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
);
