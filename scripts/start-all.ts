/**
 * `npm start`: both services in one process on the embedded defaults (SQLite under ./data,
 * in-process state, the built-in simulated upstream). Each can also run alone
 * (`npm run start:gateway`, `npm run start:energy`).
 *
 * Order matters to an operator: both configurations are read (every mistake of both reported
 * at once), then both services are built (catalogs, keys, databases checked), and only then does
 * either listen; a refusal never leaves one service half-started.
 */
import { prepareEnergy } from '@app/energy/main.ts';
import { loadEnergyConfig } from '@app/energy/config.ts';
import { prepareGateway } from '@app/gateway/main.ts';
import { loadGatewayConfig } from '@app/gateway/config.ts';
import { type Closable, ConfigError, closeOnSignals, runMain } from '@app/http-kit';

function loadBoth(env: NodeJS.ProcessEnv) {
  const problems: string[] = [];
  const attempt = <T>(load: () => T): T | undefined => {
    try {
      return load();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
      return undefined;
    }
  };
  const gateway = attempt(() => loadGatewayConfig(env));
  const energy = attempt(() => loadEnergyConfig(env));
  if (!gateway || !energy) throw new ConfigError(problems);
  return { gateway, energy };
}

/** Runs `step`; if it fails, closes what was already opened, then rethrows. */
async function orClose<T>(opened: readonly Closable[], step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    for (const target of opened) await target.close();
    throw error;
  }
}

await runMain(async () => {
  const config = loadBoth(process.env);
  const preparedGateway = await prepareGateway(config.gateway, process.env);
  const preparedEnergy = await orClose([preparedGateway], () => prepareEnergy(config.energy));
  const prepared = [preparedGateway, preparedEnergy];
  const gateway = await orClose(prepared, () => preparedGateway.listen());
  const energy = await orClose(prepared, () => preparedEnergy.listen());
  for (const line of [...gateway.banner, ...energy.banner, 'Ctrl-C stops both.']) console.log(line);
  closeOnSignals([gateway, energy], {
    deadlineMs: Math.max(gateway.drainDeadlineMs, energy.drainDeadlineMs),
    log: (message, error) => console.error(message, error ?? ''),
    onStopped: () => console.log('model gateway and energy asset service stopped'),
  });
});
