/** docs/gateway/providers.md: its example, variants, URLs and tables are what the code does. */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { AdapterRequestError, EFFORTS } from '@app/provider-adapters';
import { PROVIDERS, type ProviderId } from '../contracts.ts';
import {
  ENV,
  bodyOf,
  build,
  catalog,
  cleanUp,
  doc,
  docExample,
  docTable,
  effortCell,
  endpointOf,
  example,
  problemsOf,
  flexCell,
  relocated,
  send,
  withSnippet,
} from './upstreams-example-support.ts';

after(cleanUp);

/** The effort and tier tables are the chat models' (embeddings have their own section). */
const chatModels = catalog.models.filter((model) => model.kind === 'chat');

describe('docs/gateway/providers.md', () => {
  test('embeds the example file verbatim', () => {
    assert.deepEqual(docExample('upstreams.example.json'), example);
  });

  test('the Entra ID / classic api-version variant of cloud_c validates and is used', () => {
    const { file } = relocated(withSnippet(docExample('cloud_c-entra')));
    const variant = build(file, { ...ENV, AZURE_CLIENT_SECRET: 'test-entra-secret-0007' });
    const model = catalog.lookup('gpt-5.6-sol');
    assert.ok(model);
    const endpoint = variant.endpoint('cloud_c', model.family, model.vendor);
    assert.equal(endpoint?.adapter, 'azure-openai');
    assert.equal(endpoint?.signer.kind, 'azure-entra');
    assert.equal(endpoint?.params.apiVersion, '2025-04-01-preview');
    const offer = model.offers.get('cloud_c');
    assert.ok(endpoint && offer);
    assert.ok(doc.includes(send(endpoint, offer).url), 'the classic URL is shown');
  });

  test('the deployments variant of cloud_c maps models to deployments and says where they are listed', () => {
    const { file } = relocated(withSnippet(docExample('cloud_c-deployments')));
    const variant = build(file);
    const mini = catalog.lookup('gpt-5.4-mini');
    const offer = mini?.offers.get('cloud_c');
    assert.ok(mini && offer);
    const endpoint = variant.endpoint('cloud_c', mini.family, mini.vendor);
    assert.ok(endpoint);
    assert.deepEqual(endpoint.params.deployments, {
      'gpt-5.4-mini-2026-03-17': 'gpt54-mini-prod',
      'gpt-5.6-sol': 'sol-prod',
    });
    assert.ok(doc.includes(send(endpoint, offer).url), 'the mapped deployment URL is shown');
    assert.equal(endpoint.management?.auth.type, 'azure-managed-identity');
    assert.ok(endpoint.management && doc.includes(`/accounts/{account}/deployments?api-version=2024-10-01`));
  });

  test('the start-up problems the page quotes are the ones start-up reports', () => {
    const cases: [string, unknown][] = [
      ['developer', { vendors: { openai: { adapter: 'openai', baseUrl: 'https://api.openai.com' } } }],
      [
        'cloud_a',
        {
          vendors: {
            anthropic: {
              adapter: 'bedrock-converse',
              region: 'eu-central-1',
              auth: {
                type: 'aws-sigv4',
                region: 'us-east-1',
                accessKeyId: 'env:AWS_ACCESS_KEY_ID',
                secretAccessKey: 'env:AWS_SECRET_ACCESS_KEY',
              },
            },
          },
        },
      ],
      [
        'cloud_c',
        {
          vendors: {
            openai: {
              adapter: 'azure-openai',
              baseUrl: 'https://contoso-gw.openai.azure.com/openai',
              deployments: { 'claude-opus-4-8': 'opus' },
            },
          },
        },
      ],
    ];
    for (const [provider, section] of cases) {
      const { problems } = problemsOf(
        relocated(withSnippet({ providers: { [provider]: section } })).file,
        ENV,
      );
      assert.equal(problems.length, 1, problems.join('\n'));
      assert.ok(doc.includes(`\`${problems[0] ?? ''}\``), `providers.md quotes: ${problems[0]}`);
    }
  });

  test('the local vLLM variant of developer validates and serves its family', () => {
    const { file } = relocated(withSnippet(docExample('developer-vllm')));
    const variant = build(file);
    const mini = catalog.lookup('gpt-5.4-mini');
    const sol = catalog.lookup('gpt-5.6-sol');
    assert.ok(mini && sol);
    const endpoint = variant.endpoint('developer', mini.family, mini.vendor);
    assert.equal(endpoint?.adapter, 'openai-compatible');
    assert.equal(endpoint?.signer.kind, 'none');
    const offer = mini.offers.get('developer');
    assert.ok(endpoint && offer);
    assert.ok(doc.includes(send(endpoint, offer).url), 'the vLLM URL is shown');
    assert.equal(
      variant.endpoint('developer', sol.family, sol.vendor)?.adapter,
      'openai',
      'other families stay',
    );
  });

  test('shows the URL each upstream is called at, JSON and streaming', () => {
    const shown: [ProviderId, string][] = [
      ['developer', 'gpt-5.6-sol'],
      ['developer', 'claude-opus-4-8'],
      ['developer', 'gemini-3.1-pro-preview'],
      ['cloud_a', 'claude-opus-4-8'],
      ['cloud_a', 'claude-sonnet-4-5-20250929'],
      ['cloud_b', 'claude-opus-4-8'],
      ['cloud_b', 'claude-sonnet-4-5-20250929'],
      ['cloud_b', 'gemini-3.1-pro-preview'],
      ['cloud_c', 'gpt-5.6-sol'],
    ];
    for (const [provider, id] of shown) {
      const model = catalog.lookup(id);
      const offer = model?.offers.get(provider);
      assert.ok(model && offer, `${id} on ${provider}`);
      for (const stream of [false, true]) {
        const { url } = send(endpointOf(provider, model), offer, { stream });
        assert.ok(doc.includes(url), `providers.md shows ${url}`);
      }
    }
  });

  test('the effort table is what the adapters send, for every model on every provider', () => {
    const rows = docTable('efforts');
    assert.deepEqual([...rows.keys()].sort(), chatModels.map((model) => model.id).sort());
    for (const model of chatModels) {
      for (const [provider, offer] of model.offers) {
        const endpoint = endpointOf(provider, model);
        const row = EFFORTS.map((effort) =>
          offer.profile.efforts[effort] === undefined
            ? '—'
            : effortCell(endpoint.adapter, send(endpoint, offer, { effort })),
        );
        assert.deepEqual(row, rows.get(model.id), `${model.id} on ${provider}`);
      }
    }
  });

  test('the tier table is what the adapters send, and Claude flex is refused', () => {
    const rows = docTable('tiers');
    assert.deepEqual([...rows.keys()].sort(), chatModels.map((model) => model.id).sort());
    for (const model of chatModels) {
      const row = PROVIDERS.map((provider) => {
        const offer = model.offers.get(provider);
        if (offer === undefined) return '—';
        const endpoint = endpointOf(provider, model);
        if (!offer.tiers.includes('flex')) {
          if (endpoint.adapter === 'anthropic' || endpoint.adapter === 'vertex-claude')
            assert.throws(() => send(endpoint, offer, { tier: 'flex' }), AdapterRequestError);
          return 'standard only';
        }
        return flexCell(send(endpoint, offer, { tier: 'flex' }));
      });
      assert.deepEqual(row, rows.get(model.id), model.id);
    }
  });

  test('Vertex flex is refused outside the global location', () => {
    const model = catalog.lookup('gemini-2.5-flash');
    const offer = model?.offers.get('cloud_b');
    assert.ok(model && offer);
    const global = endpointOf('cloud_b', model);
    const regional = { ...global, params: { ...global.params, region: 'us-central1' } };
    assert.throws(
      () => send(regional, offer, { tier: 'flex' }),
      /Flex is served only on the global location/,
    );
  });

  test('web search: the tools shown for developer and cloud_b, refused on cloud_a', () => {
    for (const model of catalog.models) {
      for (const [provider, offer] of model.offers) {
        if (!offer.capabilities.webSearch) continue;
        const tools = bodyOf(send(endpointOf(provider, model), offer, { webSearch: true })).tools;
        const tool = Array.isArray(tools) ? tools[0] : undefined;
        const expected =
          model.vendor === 'anthropic'
            ? { type: 'web_search_20250305', name: 'web_search' }
            : { googleSearch: {} };
        assert.deepEqual(tool, expected, `${model.id} on ${provider}`);
        assert.ok(doc.includes(JSON.stringify(expected).replace(/,/g, ', ').replace(/:/g, ': ')));
      }
      const bedrock = model.offers.get('cloud_a');
      if (bedrock) {
        assert.equal(bedrock.capabilities.webSearch, false);
        assert.throws(
          () => send(endpointOf('cloud_a', model), bedrock, { webSearch: true }),
          AdapterRequestError,
        );
      }
    }
  });
});
