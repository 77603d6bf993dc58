// Lint rules for the whole repository (formatting is Prettier's job, see .prettierrc.json).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NODE_PROTOCOL = {
  regex: '^(fs|path|os|crypto|http|https|stream|events|url|util|child_process|net|zlib)$',
  message: 'Use the node: protocol.',
};

/** Test code may reach across areas (fixtures, harnesses); the rules below are for the product. */
const TEST_FILES = [
  '**/*.test.ts',
  '**/testing.ts',
  '**/test-app.ts',
  '**/test-support.ts',
  '**/fixtures/**',
];

/**
 * The gateway's areas meet only through their contracts (contracts.ts, errors.ts, config.ts)
 * and the few doors listed per area: a front door reaches the pipeline and the upstream area's
 * index; the pipeline reaches the upstream area's index; routing creates signers through the
 * credentials' index; access owns the database schema. `forbidden` lists the other areas.
 */
function boundary(area, forbidden, extra = []) {
  return {
    files: [`packages/gateway/src/${area}/**/*.ts`],
    ignores: TEST_FILES,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NODE_PROTOCOL,
            ...forbidden.map((other) => ({
              group: [`**/${other}/**`, `**/${other}/*`],
              message: `The ${area} area does not reach into ${other}: go through contracts.ts or the area's index.`,
            })),
            ...extra,
          ],
        },
      ],
    },
  };
}

const UPSTREAM_INTERNALS = {
  group: ['**/upstream/transport*', '**/upstream/credentials/*', '!**/upstream/credentials/index.ts'],
  message: "Use the upstream area's index.ts.",
};

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
      'no-restricted-imports': ['error', { patterns: [NODE_PROTOCOL] }],
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
    },
  },
  boundary('front-doors', ['access', 'routing', 'limits', 'db', 'cli'], [UPSTREAM_INTERNALS]),
  boundary('pipeline', ['front-doors', 'access', 'routing', 'limits', 'db', 'cli'], [UPSTREAM_INTERNALS]),
  boundary(
    'routing',
    ['front-doors', 'pipeline', 'access', 'cli'],
    [
      { group: ['**/upstream/transport*', '**/upstream/index.ts'], message: 'Routing only creates signers.' },
      {
        group: ['**/upstream/credentials/*', '!**/upstream/credentials/index.ts'],
        message: "Use the credentials' index.ts.",
      },
    ],
  ),
  boundary('upstream', ['front-doors', 'pipeline', 'routing', 'access', 'cli']),
  boundary('access', ['front-doors', 'pipeline', 'routing', 'upstream', 'dashboard', 'dev-idp']),
  boundary('ledger', ['front-doors', 'pipeline', 'routing', 'upstream', 'access']),
  // The admin API is HTTP over the access area's functions (the ones gatewayctl and the
  // dashboard call), nothing of the model path.
  boundary('admin-api', [
    'front-doors',
    'pipeline',
    'routing',
    'upstream',
    'ledger',
    'limits',
    'compression',
    'dashboard',
    'dev-idp',
    'cli',
  ]),
  // The dashboard reaches the access area (the same functions gatewayctl calls), the
  // credentials' secret reader and the dev identity provider's index; the dev provider only
  // borrows the dashboard's HTML escaping.
  boundary(
    'dashboard',
    ['front-doors', 'pipeline', 'routing', 'ledger', 'limits', 'cli'],
    [
      {
        group: ['**/upstream/*.ts', '**/upstream/credentials/*', '!**/upstream/credentials/index.ts'],
        message: "Use the credentials' index.ts.",
      },
      {
        group: ['**/dev-idp/*', '!**/dev-idp/index.ts'],
        message: "Use the dev identity provider's index.ts.",
      },
    ],
  ),
  boundary(
    'dev-idp',
    ['front-doors', 'pipeline', 'routing', 'upstream', 'access', 'ledger', 'limits', 'cli', 'db'],
    [
      {
        group: ['**/dashboard/**', '!**/dashboard/html.ts'],
        message: 'The dev identity provider is independent of the dashboard.',
      },
    ],
  ),
  boundary('limits', ['front-doors', 'pipeline', 'routing', 'upstream', 'access', 'ledger', 'db', 'cli']),
  // Compression is a pure function of the internal model: no I/O, no framework, no other area.
  boundary(
    'compression',
    [
      'front-doors',
      'pipeline',
      'routing',
      'upstream',
      'access',
      'ledger',
      'limits',
      'db',
      'cli',
      'dashboard',
      'dev-idp',
    ],
    [
      {
        group: [
          'fastify',
          'undici',
          'node:http',
          'node:https',
          'node:net',
          'node:fs',
          'node:fs/promises',
          'pino',
        ],
        message: 'Compression is pure: a request in, a request and its counts out.',
      },
    ],
  ),
  {
    // Adapters are pure translations: no web framework, no sockets, no gateway code.
    files: ['packages/provider-adapters/src/**/*.ts'],
    ignores: [...TEST_FILES, '**/fixtures.ts', '**/conformance/fixture-reader.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NODE_PROTOCOL,
            {
              group: ['fastify', 'undici', 'node:http', 'node:https', 'node:net', 'node:fs', '@app/*'],
              message:
                'Adapters are pure translations over plain data: no I/O, no framework, no gateway code.',
            },
          ],
        },
      ],
    },
  },
);
