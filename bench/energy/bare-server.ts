/**
 * The baseline of the energy benchmark: a bare Fastify route (no logger, hooks, auth or
 * database) answering a JSON object the size of one operation. Run as a child process so it
 * gets its own core like the service does.
 */
import Fastify from 'fastify';

const operation = {
  id: 1,
  building_id: 1,
  name: 'Standard office hours',
  misc_electric_load: 1.5,
  misc_gas_load: null,
  total_occupants: 120,
  setpoint_heating: 70,
  setpoint_cooling: 76,
  weekdays_open: true,
  weekday_open_time: '0800',
  weekday_close_time: '1800',
  saturdays_open: true,
  saturday_open_time: '0900',
  saturday_close_time: '1300',
  sundays_open: false,
  sunday_open_time: null,
  sunday_close_time: null,
  created_at: '2013-07-26T16:09:43Z',
  updated_at: '2013-07-26T16:09:43Z',
};

const app = Fastify({ logger: false });
app.get('/bare', async () => operation);
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
