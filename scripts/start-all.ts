/**
 * `npm start`: both services in one process on the embedded defaults (SQLite under ./data,
 * in-process state, the built-in simulated upstream). Each can also run alone
 * (`npm run start:gateway`, `npm run start:energy`).
 */
import { startEnergy } from '@app/energy/main.ts';
import { startGateway } from '@app/gateway/main.ts';
import { closeOnSignals, runMain } from '@app/http-kit';

await runMain(async () => {
  const gateway = await startGateway(process.env);
  const energy = await startEnergy(process.env);
  closeOnSignals([gateway, energy], {
    deadlineMs: Math.max(gateway.drainDeadlineMs, energy.drainDeadlineMs),
    log: (message, error) => console.error(message, error ?? ''),
  });
});
