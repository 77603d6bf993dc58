import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testEngines } from '@app/db/testing.ts';
import { energyHarness, type Harness } from '../testing/harness.ts';

for (const { engine, skip } of testEngines()) {
  describe(`fan controls and roof types (${engine})`, { skip }, () => {
    let h: Harness;
    let token: string;
    before(async () => {
      h = await energyHarness(engine);
      ({ token } = await h.user());
    });
    after(() => h?.close());

    test('fan controls: loaded by the migrations, by sort_order, exactly one default', async () => {
      const list = (await h.app.inject({ url: `/api/v1/fan_controls?token=${token}` })).json();
      assert.deepEqual(
        list.map((row: { service_name: string }) => row.service_name),
        ['constant_volume', 'variable_volume', 'two_speed'],
      );
      assert.equal(list.filter((row: { is_default: boolean }) => row.is_default).length, 1);
      const one = await h.app.inject({ url: `/api/v1/fan_controls/1.json?token=${token}` });
      assert.equal(
        one.body,
        '{"id":1,"display_name":"Constant Volume","service_name":"constant_volume","sort_order":1,"is_default":true,' +
          '"created_at":"2013-07-26T16:09:43Z","updated_at":"2013-07-26T16:09:43Z"}',
      );
    });

    test('the database refuses a second default fan control', async () => {
      const stamp = new Date().toISOString();
      await assert.rejects(
        h.db
          .insertInto('fan_controls')
          .values({
            display_name: 'X',
            service_name: 'x',
            sort_order: 9,
            is_default: 1,
            created_at: stamp,
            updated_at: stamp,
          })
          .execute(),
      );
    });

    test('roof types: golden XML list, one record, 404 for an unknown id', async () => {
      const xml = await h.app.inject({ url: `/api/v1/roof_types.xml?token=${token}` });
      const names = [...xml.body.matchAll(/<display-name type="string">([^<]+)</g)].map((match) => match[1]);
      assert.deepEqual(names, [
        'Built-up with Concrete Deck',
        'Built-up with Metal Deck',
        'Built-up with Wood Deck',
        'Metal Surfacing',
        'Shingles/Shakes',
      ]);
      const one = await h.app.inject({ url: `/api/v1/roof_types/5.xml?token=${token}` });
      assert.equal(
        one.body,
        `<?xml version="1.0" encoding="UTF-8"?>
<roof-type>
  <id type="integer">5</id>
  <display-name type="string">Shingles/Shakes</display-name>
  <service-name type="string">shingles_shakes</service-name>
  <sort-order type="integer">5</sort-order>
  <created-at type="datetime">2013-07-26T16:09:43Z</created-at>
  <updated-at type="datetime">2013-07-26T16:09:43Z</updated-at>
</roof-type>
`,
      );
      assert.equal((await h.app.inject({ url: `/api/v1/roof_types/99?token=${token}` })).statusCode, 404);
      assert.equal((await h.app.inject({ url: `/api/v1/fan_controls/0?token=${token}` })).statusCode, 404);
    });

    test('reference lists are read-only', async () => {
      for (const method of ['POST', 'PUT', 'DELETE'] as const) {
        const url = method === 'POST' ? '/api/v1/roof_types' : '/api/v1/roof_types/1';
        const response = await h.app.inject({ method, url: `${url}?token=${token}`, payload: {} });
        assert.equal(response.statusCode, 404, method);
      }
    });
  });
}
