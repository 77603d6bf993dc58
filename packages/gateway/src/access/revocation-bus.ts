import { createRedis, type Redis } from '@app/db';
import type { FastifyBaseLogger } from 'fastify';

/**
 * Optional fast path for revocations when Redis is configured: whoever revokes (gatewayctl,
 * later the dashboard) publishes on a channel, and every instance drops its token-state cache
 * at once. The ≤ 1 s cache TTL over the shared database stays the guarantee; a lost message or
 * an absent Redis only means waiting for it.
 */
function channelOf(redis: Redis): string {
  // ioredis applies keyPrefix to keys only, not to pub/sub channels: namespace by hand.
  return `${redis.options.keyPrefix ?? ''}access:revocations`;
}

export async function subscribeRevocations(
  redis: Redis,
  onRevocation: () => void,
  log: FastifyBaseLogger,
): Promise<{ close(): void }> {
  const subscriber = redis.duplicate();
  subscriber.on('error', (error: unknown) => log.warn({ err: error }, 'revocation subscriber error'));
  subscriber.on('message', () => onRevocation());
  try {
    await subscriber.subscribe(channelOf(redis));
  } catch (error) {
    log.warn({ err: error }, 'could not subscribe to revocations; the cache TTL still bounds them');
  }
  return { close: () => subscriber.disconnect() };
}

/** Tells every instance to forget cached token state now. */
export async function publishRevocation(redis: Redis, what: string): Promise<void> {
  await redis.publish(channelOf(redis), what);
}

/** For one-shot callers (the CLI): connect, publish, disconnect. */
export async function announceRevocation(url: string, keyPrefix: string, what: string): Promise<void> {
  const redis = createRedis(url, { keyPrefix });
  // Failures reach the caller through publish(); without a listener ioredis would also print them.
  redis.on('error', () => {});
  try {
    await publishRevocation(redis, what);
  } finally {
    redis.disconnect();
  }
}
