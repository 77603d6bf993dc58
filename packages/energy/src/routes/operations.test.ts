import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testEngines } from '@app/db/testing.ts';
import { energyHarness, type Harness, pinTimestamps } from '../testing/harness.ts';

const GOLDEN_XML = `<?xml version="1.0" encoding="UTF-8"?>
<operation>
  <id type="integer">1</id>
  <building-id type="integer">1</building-id>
  <name type="string">Office &amp; lab</name>
  <misc-electric-load type="float">12.0</misc-electric-load>
  <misc-gas-load type="float">1.0e-05</misc-gas-load>
  <total-occupants type="integer">120</total-occupants>
  <setpoint-heating type="integer">70</setpoint-heating>
  <setpoint-cooling type="integer">76</setpoint-cooling>
  <weekdays-open type="boolean">true</weekdays-open>
  <weekday-open-time type="string">0800</weekday-open-time>
  <weekday-close-time type="string">1800</weekday-close-time>
  <saturdays-open type="boolean">true</saturdays-open>
  <saturday-open-time type="string">0900</saturday-open-time>
  <saturday-close-time type="string">1300</saturday-close-time>
  <sundays-open type="boolean">false</sundays-open>
  <sunday-open-time type="string" nil="true"/>
  <sunday-close-time type="string" nil="true"/>
  <created-at type="datetime">2013-07-26T16:09:43Z</created-at>
  <updated-at type="datetime">2013-07-26T16:09:43Z</updated-at>
</operation>
`;

const GOLDEN_JSON =
  '{"id":1,"building_id":1,"name":"Office & lab","misc_electric_load":12.0,"misc_gas_load":1.0e-05,' +
  '"total_occupants":120,"setpoint_heating":70,"setpoint_cooling":76,"weekdays_open":true,' +
  '"weekday_open_time":"0800","weekday_close_time":"1800","saturdays_open":true,"saturday_open_time":"0900",' +
  '"saturday_close_time":"1300","sundays_open":false,"sunday_open_time":null,"sunday_close_time":null,' +
  '"created_at":"2013-07-26T16:09:43Z","updated_at":"2013-07-26T16:09:43Z"}';

/** The spec's own example style: response names, integer times, `t` booleans. */
const SPEC_EXAMPLE_BODY = {
  name: 'Office & lab',
  misc_electric_load: 12,
  misc_gas_load: 0.00001,
  total_occupants: 120,
  setpoint_heating: 70,
  setpoint_cooling: 76,
  weekdays_open: 't',
  weekday_open_time: 800,
  weekday_close_time: 1800,
  saturdays_open: 't',
  saturday_open_time: 900,
  saturday_close_time: 1300,
  sundays_open: 'f',
};

for (const { engine, skip } of testEngines()) {
  describe(`operations over HTTP (${engine})`, { skip }, () => {
    let h: Harness;
    let auth: Record<string, string>;
    let buildingId: number;
    before(async () => {
      h = await energyHarness(engine);
      const { token } = await h.user();
      auth = { authorization: `Bearer ${token}` };
      const building = await h.app.inject({
        method: 'POST',
        url: '/api/v1/buildings',
        headers: auth,
        payload: { name: 'HQ' },
      });
      buildingId = building.json().id;
    });
    after(() => h?.close());

    const create = (payload: unknown, headers: Record<string, string> = {}, suffix = '') =>
      h.app.inject({
        method: 'POST',
        url: `/api/v1/buildings/${buildingId}/operations${suffix}`,
        headers: { ...auth, ...headers },
        payload: payload as string,
      });

    test('an empty list is an empty array / <operations type="array"/>', async () => {
      const json = await h.app.inject({ url: `/api/v1/buildings/${buildingId}/operations`, headers: auth });
      assert.equal(json.statusCode, 200);
      assert.equal(json.body, '[]');
      const xml = await h.app.inject({
        url: `/api/v1/buildings/${buildingId}/operations.xml`,
        headers: auth,
      });
      assert.equal(xml.body, '<?xml version="1.0" encoding="UTF-8"?>\n<operations type="array"/>\n');
      assert.equal(xml.headers['content-type'], 'application/xml; charset=utf-8');
    });

    test('create from the spec example body: 201, Location, golden JSON and XML', async () => {
      const response = await create(SPEC_EXAMPLE_BODY);
      assert.equal(response.statusCode, 201);
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
      const id = response.json().id;
      assert.equal(response.headers.location, `http://localhost:80/api/v1/operations/${id}`);
      assert.equal(id, 1);
      await pinTimestamps(h.db, 'operations');
      const json = await h.app.inject({ url: '/api/v1/operations/1', headers: auth });
      assert.equal(json.body, GOLDEN_JSON);
      const xml = await h.app.inject({ url: '/api/v1/operations/1.xml', headers: auth });
      assert.equal(xml.body, GOLDEN_XML);
    });

    test('a list holds every operation of the building in both formats', async () => {
      const json = await h.app.inject({
        url: `/api/v1/buildings/${buildingId}/operations.json`,
        headers: auth,
      });
      assert.equal(json.body, `[${GOLDEN_JSON}]`);
      const xml = await h.app.inject({
        url: `/api/v1/buildings/${buildingId}/operations?format=xml`,
        headers: auth,
      });
      const inner = GOLDEN_XML.split('\n')
        .slice(1, -1)
        .map((line) => `  ${line}`)
        .join('\n');
      assert.equal(
        xml.body,
        `<?xml version="1.0" encoding="UTF-8"?>\n<operations type="array">\n${inner}\n</operations>\n`,
      );
    });

    test('XML in (Rails to_xml of the spec names), JSON out', async () => {
      const xml = `<?xml version="1.0" encoding="UTF-8"?>
<operation>
  <name>From XML</name>
  <misc-electric-load type="float">0.75</misc-electric-load>
  <weekdays-open type="boolean">true</weekdays-open>
  <weekdays-open-time>8:00 am</weekdays-open-time>
  <weekdays-close-time type="integer">1730</weekdays-close-time>
  <saturday-open type="boolean">false</saturday-open>
  <sunday-open>t</sunday-open>
  <misc-gas-load type="float" nil="true"/>
</operation>`;
      const response = await create(xml, { 'content-type': 'application/xml', accept: 'application/json' });
      assert.equal(response.statusCode, 201, response.body);
      const body = response.json();
      assert.equal(body.name, 'From XML');
      assert.equal(body.misc_electric_load, 0.75);
      assert.equal(body.weekdays_open, true);
      assert.equal(body.weekday_open_time, '0800');
      assert.equal(body.weekday_close_time, '1730');
      assert.equal(body.saturdays_open, false);
      assert.equal(body.sundays_open, true);
      assert.equal(body.misc_gas_load, null);
    });

    test('every parameter alias sets its attribute, flat and wrapped', async () => {
      const aliases: Array<[string, unknown, string, unknown]> = [
        ['weekdays_open_time', '7am', 'weekday_open_time', '0700'],
        ['weekday_open_time', '7am', 'weekday_open_time', '0700'],
        ['weekdays_close_time', '19:00', 'weekday_close_time', '1900'],
        ['weekday_close_time', '19:00', 'weekday_close_time', '1900'],
        ['saturday_open', 'true', 'saturdays_open', true],
        ['saturdays_open', 'true', 'saturdays_open', true],
        ['sunday_open', '1', 'sundays_open', true],
        ['sundays_open', '1', 'sundays_open', true],
        ['weekdays_open', 0, 'weekdays_open', false],
        ['saturday_open_time', 1000, 'saturday_open_time', '1000'],
        ['saturday_close_time', '2 p.m.', 'saturday_close_time', '1400'],
        ['sunday_open_time', '11:30 am', 'sunday_open_time', '1130'],
        ['sunday_close_time', '4pm', 'sunday_close_time', '1600'],
      ];
      for (const [name, value, attribute, expected] of aliases) {
        for (const payload of [{ [name]: value }, { operation: { [name]: value } }]) {
          const response = await create(payload);
          assert.equal(response.statusCode, 201, `${name}: ${response.body}`);
          assert.deepEqual(response.json()[attribute], expected, JSON.stringify(payload));
        }
      }
    });

    test('the spec input name wins over the response name when both are sent', async () => {
      const response = await create({ weekdays_open_time: '0600', weekday_open_time: '0900' });
      assert.equal(response.json().weekday_open_time, '0600');
    });

    test('form-encoded, bracketed and query-string parameters', async () => {
      const form = await create(
        'operation%5Bname%5D=Form&operation%5Bweekdays_open_time%5D=8%3A00+p.m.&saturday_open=f',
        {
          'content-type': 'application/x-www-form-urlencoded',
        },
      );
      assert.equal(form.statusCode, 201, form.body);
      assert.equal(form.json().name, 'Form');
      assert.equal(form.json().weekday_open_time, '2000');
      assert.equal(form.json().saturdays_open, false);
      const query = await h.app.inject({
        method: 'POST',
        url: `/api/v1/buildings/${buildingId}/operations?name=Query&total_occupants=12&operation[setpoint_heating]=68`,
        headers: auth,
      });
      assert.equal(query.statusCode, 201, query.body);
      assert.deepEqual(
        [query.json().name, query.json().total_occupants, query.json().setpoint_heating],
        ['Query', 12, 68],
      );
    });

    test('invalid values are 422 with per-field messages, in JSON and XML; nothing is stored', async () => {
      const before = (
        await h.app.inject({ url: `/api/v1/buildings/${buildingId}/operations`, headers: auth })
      ).json().length;
      const bad = {
        weekdays_open_time: '25:00',
        saturday_close_time: 'noon',
        weekdays_open: 'yes',
        total_occupants: 'abc',
        misc_electric_load: 'lots',
        setpoint_heating: 70.5,
        misc_gas_load: -1,
      };
      const json = await create(bad);
      assert.equal(json.statusCode, 422);
      assert.deepEqual(json.json(), {
        errors: {
          misc_electric_load: ['is not a number'],
          misc_gas_load: ['must be greater than or equal to 0'],
          total_occupants: ['is not a number'],
          setpoint_heating: ['must be an integer'],
          weekdays_open: ['must be true or false'],
          weekday_open_time: ['is not a valid time (use HHMM such as 0800, 20:00 or 8:00 am)'],
          saturday_close_time: ['is not a valid time (use HHMM such as 0800, 20:00 or 8:00 am)'],
        },
      });
      const xml = await create({ sunday_open_time: '8:75 am', total_occupants: '' }, {}, '.xml');
      assert.equal(xml.statusCode, 422);
      assert.equal(
        xml.body,
        '<?xml version="1.0" encoding="UTF-8"?>\n<errors>\n' +
          '  <error>Sunday open time is not a valid time (use HHMM such as 0800, 20:00 or 8:00 am)</error>\n</errors>\n',
      );
      const after = (
        await h.app.inject({ url: `/api/v1/buildings/${buildingId}/operations`, headers: auth })
      ).json().length;
      assert.equal(after, before);
    });

    test('elevator_id must name an elevator of the same building', async () => {
      const other = await h.app.inject({
        method: 'POST',
        url: '/api/v1/buildings',
        headers: auth,
        payload: { name: 'Annex' },
      });
      const foreign = await h.app.inject({
        method: 'POST',
        url: `/api/v1/buildings/${other.json().id}/elevators`,
        headers: auth,
        payload: { name: 'Car B' },
      });
      const own = await h.app.inject({
        method: 'POST',
        url: `/api/v1/buildings/${buildingId}/elevators`,
        headers: auth,
        payload: { name: 'Car A' },
      });
      const rejected = await create({ elevator_id: foreign.json().id });
      assert.equal(rejected.statusCode, 422);
      assert.deepEqual(rejected.json(), {
        errors: { elevator_id: ['must name an elevator of the same building'] },
      });
      assert.equal((await create({ elevator_id: 999999 })).statusCode, 422);
      const accepted = await create({ elevator_id: own.json().id });
      assert.equal(accepted.statusCode, 201);
      const row = await h.db
        .selectFrom('operations')
        .select('elevator_id')
        .where('id', '=', accepted.json().id)
        .executeTakeFirst();
      assert.equal(row?.elevator_id, own.json().id);
    });

    test('update changes only what is sent: 204, no body; delete: 204 then 404', async () => {
      const created = await create({ name: 'Before', total_occupants: 5, weekdays_open_time: '0800' });
      const id = created.json().id;
      const update = await h.app.inject({
        method: 'PUT',
        url: `/api/v1/operations/${id}.xml`,
        headers: { ...auth, 'content-type': 'application/xml' },
        payload: '<operation><name>After</name><total-occupants type="integer" nil="true"/></operation>',
      });
      assert.equal(update.statusCode, 204);
      assert.equal(update.body, '');
      const shown = (await h.app.inject({ url: `/api/v1/operations/${id}`, headers: auth })).json();
      assert.deepEqual([shown.name, shown.total_occupants, shown.weekday_open_time], ['After', null, '0800']);
      await pinTimestamps(h.db, 'operations');
      const empty = await h.app.inject({
        method: 'PUT',
        url: `/api/v1/operations/${id}`,
        headers: auth,
        payload: {},
      });
      assert.equal(empty.statusCode, 204);
      const untouched = (await h.app.inject({ url: `/api/v1/operations/${id}`, headers: auth })).json();
      assert.equal(untouched.updated_at, '2013-07-26T16:09:43Z', 'an update naming nothing changes nothing');
      const patch = await h.app.inject({
        method: 'PATCH',
        url: `/api/v1/operations/${id}`,
        headers: auth,
        payload: { total_occupants: 'x' },
      });
      assert.equal(patch.statusCode, 422);
      const removed = await h.app.inject({
        method: 'DELETE',
        url: `/api/v1/operations/${id}`,
        headers: auth,
      });
      assert.equal(removed.statusCode, 204);
      assert.equal(removed.body, '');
      assert.equal((await h.app.inject({ url: `/api/v1/operations/${id}`, headers: auth })).statusCode, 404);
      assert.equal(
        (await h.app.inject({ method: 'DELETE', url: `/api/v1/operations/${id}`, headers: auth })).statusCode,
        404,
      );
    });

    test("another user's operations and buildings are 404, never a leak", async () => {
      const intruder = await h.user();
      const as = { authorization: `Token token=${intruder.token}` };
      const requests = [
        { method: 'GET', url: '/api/v1/operations/1' },
        { method: 'GET', url: '/api/v1/operations/1.xml' },
        { method: 'PUT', url: '/api/v1/operations/1', payload: { name: 'hijacked' } },
        { method: 'DELETE', url: '/api/v1/operations/1' },
        { method: 'GET', url: `/api/v1/buildings/${buildingId}/operations` },
        { method: 'POST', url: `/api/v1/buildings/${buildingId}/operations`, payload: { name: 'x' } },
        { method: 'GET', url: `/api/v1/buildings/${buildingId}` },
      ] as const;
      for (const request of requests) {
        const response = await h.app.inject({ ...request, headers: as });
        assert.equal(response.statusCode, 404, `${request.method} ${request.url}`);
        if (request.url.endsWith('.xml')) assert.match(response.body, /<code>not_found<\/code>/);
        else
          assert.deepEqual(response.json(), {
            error: { code: 'not_found', message: 'Unsupported operation' },
          });
      }
      const own = (await h.app.inject({ url: '/api/v1/operations/1', headers: auth })).json();
      assert.equal(own.name, 'Office & lab');
      const missing = await h.app.inject({ url: '/api/v1/operations/abc', headers: auth });
      assert.equal(missing.statusCode, 404);
    });
  });
}
