import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testEngines } from '@app/db/testing.ts';
import { energyHarness, type Harness, pinTimestamps } from '../testing/harness.ts';

for (const { engine, skip } of testEngines()) {
  describe(`buildings and elevators (${engine})`, { skip }, () => {
    let h: Harness;
    let auth: Record<string, string>;
    before(async () => {
      h = await energyHarness(engine, { publicUrl: 'https://energy.example.com' });
      const { token } = await h.user();
      auth = { authorization: `Bearer ${token}` };
    });
    after(() => h?.close());

    test('create a building: 201, Location on the public URL, golden JSON', async () => {
      const response = await h.app.inject({
        method: 'POST',
        url: '/api/v1/buildings',
        headers: auth,
        payload: {
          building: {
            name: 'HQ',
            address: '1 Main St',
            zip_code: '80302',
            floor_area: '52000',
            year_built: 1998,
          },
        },
      });
      assert.equal(response.statusCode, 201, response.body);
      const id = response.json().id;
      assert.equal(response.headers.location, `https://energy.example.com/api/v1/buildings/${id}`);
      await pinTimestamps(h.db, 'buildings');
      const shown = await h.app.inject({ url: `/api/v1/buildings/${id}`, headers: auth });
      assert.equal(
        shown.body,
        `{"id":${id},"name":"HQ","street_address":"1 Main St","city":null,"state":null,"postal_code":"80302",` +
          '"country":null,"floor_area":52000.0,"year_built":1998,"created_at":"2013-07-26T16:09:43Z",' +
          '"updated_at":"2013-07-26T16:09:43Z"}',
      );
    });

    test('name is required; year and area validated', async () => {
      const response = await h.app.inject({
        method: 'POST',
        url: '/api/v1/buildings',
        headers: auth,
        payload: { floor_area: 'big', year_built: 12 },
      });
      assert.equal(response.statusCode, 422);
      assert.deepEqual(response.json(), {
        errors: {
          name: ["can't be blank"],
          floor_area: ['is not a number'],
          year_built: ['must be greater than or equal to 1000'],
        },
      });
      const blank = await h.app.inject({
        method: 'PUT',
        url: '/api/v1/buildings/1',
        headers: auth,
        payload: { name: '' },
      });
      assert.equal(blank.statusCode, 422);
    });

    test('elevators: nested create and list, shallow show/update/delete', async () => {
      const created = await h.app.inject({
        method: 'POST',
        url: '/api/v1/buildings/1/elevators.xml',
        headers: { ...auth, 'content-type': 'application/xml' },
        payload: '<elevator><name>Car A</name><capacity-lbs type="integer">3500</capacity-lbs></elevator>',
      });
      assert.equal(created.statusCode, 201, created.body);
      assert.match(created.body, /<capacity-lbs type="integer">3500<\/capacity-lbs>/);
      assert.match(String(created.headers.location), /\/api\/v1\/elevators\/\d+$/);
      const id = /<id type="integer">(\d+)</.exec(created.body)?.[1];
      const update = await h.app.inject({
        method: 'PUT',
        url: `/api/v1/elevators/${id}`,
        headers: auth,
        payload: { floors_served: 12 },
      });
      assert.equal(update.statusCode, 204);
      const list = (await h.app.inject({ url: '/api/v1/buildings/1/elevators', headers: auth })).json();
      assert.deepEqual(
        list.map((row: { name: string; floors_served: number }) => [row.name, row.floors_served]),
        [['Car A', 12]],
      );
      assert.equal(
        (await h.app.inject({ method: 'DELETE', url: `/api/v1/elevators/${id}`, headers: auth })).statusCode,
        204,
      );
      assert.equal((await h.app.inject({ url: `/api/v1/elevators/${id}`, headers: auth })).statusCode, 404);
    });

    test('deleting an elevator unlinks operations; deleting a building removes its operations', async () => {
      const elevator = await h.app.inject({
        method: 'POST',
        url: '/api/v1/buildings/1/elevators',
        headers: auth,
        payload: { name: 'Car B' },
      });
      const operation = await h.app.inject({
        method: 'POST',
        url: '/api/v1/buildings/1/operations',
        headers: auth,
        payload: { name: 'Ops', elevator_id: elevator.json().id },
      });
      assert.equal(operation.statusCode, 201);
      await h.app.inject({ method: 'DELETE', url: `/api/v1/elevators/${elevator.json().id}`, headers: auth });
      const row = await h.db
        .selectFrom('operations')
        .select('elevator_id')
        .where('id', '=', operation.json().id)
        .executeTakeFirst();
      assert.equal(row?.elevator_id, null);
      assert.equal(
        (await h.app.inject({ method: 'DELETE', url: '/api/v1/buildings/1', headers: auth })).statusCode,
        204,
      );
      assert.equal(
        (await h.app.inject({ url: `/api/v1/operations/${operation.json().id}`, headers: auth })).statusCode,
        404,
      );
      assert.equal((await h.app.inject({ url: '/api/v1/buildings', headers: auth })).body, '[]');
    });

    test("another user's buildings and elevators are 404", async () => {
      const building = await h.app.inject({
        method: 'POST',
        url: '/api/v1/buildings',
        headers: auth,
        payload: { name: 'Mine' },
      });
      const elevator = await h.app.inject({
        method: 'POST',
        url: `/api/v1/buildings/${building.json().id}/elevators`,
        headers: auth,
        payload: { name: 'Car' },
      });
      const other = await h.user();
      const as = { authorization: `Bearer ${other.token}` };
      for (const [method, url] of [
        ['GET', `/api/v1/buildings/${building.json().id}`],
        ['PUT', `/api/v1/buildings/${building.json().id}`],
        ['DELETE', `/api/v1/buildings/${building.json().id}`],
        ['GET', `/api/v1/buildings/${building.json().id}/elevators`],
        ['GET', `/api/v1/elevators/${elevator.json().id}`],
        ['DELETE', `/api/v1/elevators/${elevator.json().id}`],
      ] as const) {
        const response = await h.app.inject({ method, url, headers: as, payload: { name: 'x' } });
        assert.equal(response.statusCode, 404, `${method} ${url}`);
      }
      assert.equal((await h.app.inject({ url: '/api/v1/buildings', headers: as })).body, '[]');
    });
  });
}
