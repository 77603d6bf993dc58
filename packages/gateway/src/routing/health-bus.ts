/**
 * Shares circuit-breaker health between gateway instances through Redis, when one is
 * configured. Each instance publishes its own breaker events on a channel and applies the
 * others' to its CircuitBreakers; the request path keeps reading process memory only.
 * Publishing is queued and sent after the current turn of the event loop, never awaited by a
 * request, and its failure only costs the sharing (a warning at most every `quietMs`): without
 * Redis every instance still has its own breakers, as before sharing existed.
 *
 * Open circuits are also written as keys with the remaining cooldown as TTL, so an instance
 * that starts (or reconnects) while a circuit is open elsewhere learns it with one read.
 * Redis's own TTL carries the remaining time, so instance clocks need not agree.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from '@app/db';
import type { FastifyBaseLogger } from 'fastify';
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import type { CircuitBreakers, HealthEvent } from './breaker.ts';

const MessageSchema = Type.Object({
  v: Type.Literal(1),
  /** The publishing instance: an instance ignores its own messages. */
  from: Type.String({ minLength: 1 }),
  key: Type.String({ minLength: 1 }),
  kind: Type.Union([
    Type.Literal('failure'),
    Type.Literal('open'),
    Type.Literal('close'),
    Type.Literal('reset'),
  ]),
  /** When the event happened and when it was sent, both on the sender's clock. */
  at: Type.Number(),
  sentAt: Type.Number(),
});

export type HealthMessage = Static<typeof MessageSchema>;

/** A message from the channel, or undefined when it is not one of ours (never trusted blindly). */
export function parseHealthMessage(text: string): HealthMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return Value.Check(MessageSchema, value) ? value : undefined;
}

export function healthChannel(redis: Redis): string {
  // ioredis applies keyPrefix to keys only, not to pub/sub channels: namespace by hand.
  return `${redis.options.keyPrefix ?? ''}health:events`;
}

/** The key (under the client's prefix) that marks an endpoint's circuit open fleet-wide. */
export function openKey(endpointKey: string): string {
  return `health:open:${endpointKey}`;
}

export interface HealthBusDeps {
  readonly redis: Redis;
  readonly breakers: Pick<CircuitBreakers, 'applyRemote'>;
  /** Every endpoint key of this instance: the open ones are read at start-up. */
  readonly keys: readonly string[];
  readonly cooldownMs: number;
  /** The breakers' clock. */
  readonly now: () => number;
  readonly log: FastifyBaseLogger;
  /** Minimum time between two warnings about Redis (default 10 s). */
  readonly quietMs?: number;
  /** How long start-up waits for the subscription and the open circuits (default 1 s). */
  readonly startWaitMs?: number;
}

export interface HealthBus {
  readonly instanceId: string;
  /** Queues a local breaker event for the other instances; returns at once. */
  publish(event: HealthEvent): void;
  /** Resolves when everything queued so far has been handed to Redis (or failed). */
  flushed(): Promise<void>;
  close(): Promise<void>;
}

/** Subscribes, reads the circuits open elsewhere, and returns the publishing side. */
export async function startHealthBus(deps: HealthBusDeps): Promise<HealthBus> {
  const { redis, now } = deps;
  const instanceId = randomUUID();
  const channel = healthChannel(redis);
  const known = new Set(deps.keys);
  const warn = quietWarner(deps.log, now, deps.quietMs ?? 10_000);
  const subscriber = redis.duplicate();
  subscriber.on('error', (error: unknown) =>
    warn(error, 'health bus subscriber failed; breakers are per instance'),
  );
  subscriber.on('message', (_channel: string, text: string) => {
    const message = parseHealthMessage(text);
    // An endpoint this instance does not have (another upstreams file) is none of its business.
    if (!message || message.from === instanceId || !known.has(message.key)) return;
    deps.breakers.applyRemote({ key: message.key, kind: message.kind, ageMs: message.sentAt - message.at });
  });
  const catchUp = () =>
    readOpenCircuits(deps).catch((error: unknown) => warn(error, 'could not read open circuits from Redis'));
  // Messages sent while this instance was cut off are lost; the open keys are not.
  subscriber.on('ready', () => void catchUp());
  const subscribed = subscriber
    .subscribe(channel)
    .then(catchUp)
    .catch((error: unknown) =>
      warn(error, 'could not subscribe to shared breaker health; breakers are per instance'),
    );
  // Start-up waits for Redis a bounded time: an unreachable one must not hold the gateway
  // back, and once it answers, the `ready` handler above catches up.
  await Promise.race([subscribed, sleep(deps.startWaitMs ?? 1_000, undefined, { ref: false })]);
  const publisher = queuedPublisher({ ...deps, instanceId, channel, warn });
  return {
    instanceId,
    publish: publisher.publish,
    flushed: publisher.flushed,
    close: async () => subscriber.disconnect(),
  };
}

async function readOpenCircuits(deps: HealthBusDeps): Promise<void> {
  if (deps.keys.length === 0) return;
  const pipeline = deps.redis.pipeline();
  for (const key of deps.keys) pipeline.pttl(openKey(key));
  const results = (await pipeline.exec()) ?? [];
  results.forEach(([error, ttl], index) => {
    const key = deps.keys[index];
    if (error || key === undefined || typeof ttl !== 'number' || ttl <= 0) return;
    deps.breakers.applyRemote({ key, kind: 'open', ageMs: Math.max(0, deps.cooldownMs - ttl) });
  });
}

type Warn = (error: unknown, message: string) => void;

function queuedPublisher(deps: HealthBusDeps & { instanceId: string; channel: string; warn: Warn }) {
  let queue: HealthEvent[] = [];
  let sending: Promise<void> = Promise.resolve();
  const send = async (events: readonly HealthEvent[]) => {
    const pipeline = deps.redis.pipeline();
    const sentAt = deps.now();
    for (const event of events) {
      const message: HealthMessage = { v: 1, from: deps.instanceId, ...event, sentAt };
      pipeline.publish(deps.channel, JSON.stringify(message));
      const remaining = deps.cooldownMs - (sentAt - event.at);
      if (event.kind === 'open' && remaining > 0)
        pipeline.set(openKey(event.key), deps.instanceId, 'PX', remaining);
      if (event.kind === 'close') pipeline.del(openKey(event.key));
    }
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([error]) => error)?.[0];
    if (failed) throw failed;
  };
  return {
    publish(event: HealthEvent): void {
      queue.push(event);
      if (queue.length > 1) return;
      // After the current turn: the report that caused the event returns without waiting for Redis.
      setImmediate(() => {
        const events = queue;
        queue = [];
        sending = sending.then(() =>
          send(events).catch((error: unknown) =>
            deps.warn(error, 'could not share breaker health through Redis; breakers are per instance'),
          ),
        );
      });
    },
    flushed: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      await sending;
    },
  };
}

/** Logs at warn at most once per `quietMs`, so a Redis outage does not flood the log. */
function quietWarner(log: FastifyBaseLogger, now: () => number, quietMs: number): Warn {
  let warnedAt = Number.NEGATIVE_INFINITY;
  return (error, message) => {
    const at = now();
    if (at - warnedAt < quietMs) return;
    warnedAt = at;
    log.warn({ err: error }, message);
  };
}
