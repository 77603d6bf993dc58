// Lint rules for the whole repository (formatting is Prettier's job, see .prettierrc.json).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/data/**', 'packages/*/bin/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2024, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(fs|path|os|crypto|http|https|stream|events|url|util|child_process|net|zlib)$',
              message: 'Use the node: protocol.',
            },
          ],
        },
      ],
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
    },
  },
);
