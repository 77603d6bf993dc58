/** gatewayctl's `alerts` commands: a project's budget alert thresholds and webhook. */
import { dismissAlerts, recentAlerts } from '../alerts/active.ts';
import {
  alertSettings,
  describeSettings,
  rotateWebhookSecret,
  setAlertSettings,
} from '../alerts/settings.ts';
import type { Handler } from './commands.ts';
import { table } from './list-commands.ts';

const LAST_ERROR_CHARS = 200;
const clip = (text: string) =>
  text.length > LAST_ERROR_CHARS ? `${text.slice(0, LAST_ERROR_CHARS)}... (--json shows it all)` : text;
const option = (value: string | boolean | undefined) => (typeof value === 'string' ? value : undefined);

export const ALERT_COMMANDS: Readonly<Record<string, Handler>> = {
  'alerts set': async ({ config, database, print }, args) => {
    const slug = args.args.SLUG ?? '';
    const thresholds = option(args.options.thresholds);
    const webhookUrl = option(args.options.webhook);
    const result = await setAlertSettings(database.db, config.alerts, {
      slug,
      ...(thresholds === undefined ? {} : { thresholds }),
      ...(webhookUrl === undefined ? {} : { webhookUrl }),
    });
    print(`${slug} budget alerts: ${describeSettings(result.settings)}`);
    // Shown once: the gateway keeps it only to sign with.
    if (result.newSecret) print(`webhook signing secret (shown once): ${result.newSecret}`);
  },
  'alerts show': async ({ database, print }, args) => {
    const settings = await alertSettings(database.db, args.args.SLUG ?? '');
    const alerts = await recentAlerts(database.db, settings.projectId);
    if (args.options.json === true) {
      const { projectId: _id, ...shown } = settings;
      return print(JSON.stringify({ ...shown, alerts }, null, 2));
    }
    print(`${settings.slug} budget alerts: ${describeSettings(settings)}`);
    if (alerts.length === 0) return print('no alerts yet');
    const rows = alerts.map((a) => [
      a.provider,
      `${a.threshold}%`,
      String(a.epoch),
      a.crossedAt,
      a.delivery,
      String(a.attempts),
      a.dismissed ? 'yes' : '-',
      a.id,
    ]);
    const header = ['PROVIDER', 'THRESHOLD', 'EPOCH', 'CROSSED', 'DELIVERY', 'ATTEMPTS', 'DISMISSED', 'ID'];
    for (const line of table([header, ...rows])) print(line);
    // Why the undelivered ones are not delivered: the receiver's answer, cleaned when stored and read.
    for (const a of alerts)
      if (a.lastError && a.delivery !== 'delivered') print(`${a.id} last error: ${clip(a.lastError)}`);
  },
  'alerts rotate-secret': async ({ database, print }, args) => {
    const secret = await rotateWebhookSecret(database.db, { slug: args.args.SLUG ?? '' });
    print(`webhook signing secret (shown once): ${secret}`);
  },
  'alerts dismiss': async ({ database, print }, args) => {
    const slug = args.args.SLUG ?? '';
    const count = await dismissAlerts(database.db, { slug });
    print(`${slug}: ${count} alert${count === 1 ? '' : 's'} dismissed`);
  },
};
