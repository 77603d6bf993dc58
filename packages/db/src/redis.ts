import { Redis } from 'ioredis';

/**
 * A Redis connection for state shared by instances. `keyPrefix` namespaces every key so tests
 * and deployments can share one server. Connection errors surface on the first command
 * instead of retrying silently forever.
 */
export function createRedis(url: string, options: { keyPrefix?: string } = {}): Redis {
  return new Redis(url, {
    keyPrefix: options.keyPrefix ?? '',
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    lazyConnect: false,
  });
}

export type { Redis };
