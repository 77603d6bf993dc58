import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import pino from 'pino';
import { LOG_BATCH_BYTES, logDestination, loggerOptions } from './logger.ts';

function logThrough(
  format: 'auto' | 'json' | 'pretty',
  isTty: boolean,
): { text: () => string; pretty: boolean } {
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const destination = logDestination({ level: 'info', format }, isTty, output);
  const pretty = destination.stream !== undefined && !('flushSync' in destination.stream);
  if (pretty) {
    const log = pino(loggerOptions({ level: 'info' }, 'gateway'), destination.stream);
    log.info({ statusCode: 200, responseTime: 1.5 }, 'request completed');
  }
  return { text: () => text, pretty };
}

describe('log destination', () => {
  it('is human-readable on a terminal: one line, no JSON envelope, no epoch milliseconds', async () => {
    const log = logThrough('auto', true);
    assert.equal(log.pretty, true);
    await new Promise((resolve) => setImmediate(resolve));
    const text = log.text();
    assert.match(text, /^\S*\[\d\d:\d\d:\d\d\]\S* \S*INFO\S*: \S*gateway request completed/);
    assert.equal(text.trim().split('\n').length, 1);
    assert.doesNotMatch(text, /"level"|"time"|\d{13}/);
  });

  it('stays JSON lines when not on a terminal, or when asked', () => {
    assert.equal(logThrough('auto', false).pretty, false);
    assert.equal(logThrough('json', true).pretty, false);
    assert.equal(logThrough('pretty', false).pretty, true);
  });

  it('batches JSON lines (one write per few kilobytes), flushed on close', () => {
    const destination = logDestination({ level: 'info', format: 'json' }, false);
    const stream = destination.stream as unknown as { minLength: number };
    try {
      assert.equal(stream.minLength, LOG_BATCH_BYTES);
    } finally {
      destination.flush();
    }
  });
});
