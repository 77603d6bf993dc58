import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientAddress, inRanges, parseAddress, parseRange, parseRanges } from './ip.ts';

const ranges = (...entries: string[]) => parseRanges(entries).ranges;
const matches = (address: string, ...entries: string[]) => {
  const parsed = parseAddress(address);
  assert.ok(parsed, `${address} parses`);
  return inRanges(parsed, ranges(...entries));
};

describe('IP ranges', () => {
  it('matches IPv4 and IPv6 CIDRs and single addresses', () => {
    assert.equal(matches('10.1.2.3', '10.0.0.0/8'), true);
    assert.equal(matches('11.1.2.3', '10.0.0.0/8'), false);
    assert.equal(matches('2001:db8::42', '2001:db8::/32'), true);
    assert.equal(matches('2001:db9::42', '2001:db8::/32'), false);
    assert.equal(matches('::1', '::1'), true);
    assert.equal(matches('203.0.113.9', '203.0.113.9'), true);
  });

  it('lets an IPv4-mapped IPv6 client match IPv4 ranges, and mapped ranges match IPv4 clients', () => {
    assert.equal(matches('::ffff:10.1.2.3', '10.0.0.0/8'), true);
    assert.equal(matches('::ffff:192.0.2.1', '10.0.0.0/8'), false);
    assert.equal(matches('10.1.2.3', '::ffff:10.0.0.0/104'), true);
    assert.equal(matches('::ffff:10.1.2.3', '::ffff:10.0.0.0/104'), true);
  });

  it('never matches an IPv4 client against IPv6 ranges or the other way round', () => {
    assert.equal(matches('127.0.0.1', '::1/128', '::/0'), false);
    assert.equal(matches('::1', '0.0.0.0/0'), false);
  });

  it('parses addresses with ports, brackets and zones, and splits comma-separated entries', () => {
    assert.equal(parseAddress('[2001:db8::1]:443')?.toString(), '2001:db8::1');
    assert.equal(parseAddress('192.0.2.1:8080')?.toString(), '192.0.2.1');
    assert.equal(parseAddress('fe80::1%eth0')?.toString(), 'fe80::1');
    assert.equal(parseAddress('not-an-ip'), undefined);
    assert.deepEqual(parseRanges(['10.0.0.0/8, ::1', ' 192.0.2.0/24']).invalid, []);
    assert.equal(parseRanges(['10.0.0.0/8,::1']).ranges.length, 2);
    assert.deepEqual(parseRanges(['10.0.0.0/33', 'example.com', '10.0.0.0/8']).invalid, [
      '10.0.0.0/33',
      'example.com',
    ]);
    assert.equal(parseRange('300.1.1.1/8'), undefined);
  });
});

describe('client address', () => {
  const trusted = ranges('127.0.0.1/32', '10.0.0.0/8');

  it('is the socket peer when the peer is not a trusted proxy, whatever X-Forwarded-For says', () => {
    assert.equal(clientAddress('192.0.2.7', '10.9.9.9', trusted).text, '192.0.2.7');
    assert.equal(clientAddress('127.0.0.1', '198.51.100.4', []).text, '127.0.0.1');
  });

  it('walks X-Forwarded-For right to left past trusted hops', () => {
    assert.equal(clientAddress('127.0.0.1', '198.51.100.4', trusted).text, '198.51.100.4');
    assert.equal(clientAddress('127.0.0.1', '6.6.6.6, 198.51.100.4, 10.0.0.2', trusted).text, '198.51.100.4');
    assert.equal(clientAddress('127.0.0.1', ['6.6.6.6', '198.51.100.4'], trusted).text, '198.51.100.4');
    assert.equal(clientAddress('::ffff:127.0.0.1', '2001:db8::5', trusted).text, '2001:db8::5');
  });

  it('stops at an unparsable hop and reports it as seen', () => {
    const seen = clientAddress('127.0.0.1', '198.51.100.4, garbage', trusted);
    assert.equal(seen.text, 'garbage');
    assert.equal(seen.address, undefined);
  });

  it('uses the leftmost hop when every hop is trusted, and the peer when the header is absent', () => {
    assert.equal(clientAddress('127.0.0.1', '10.0.0.3, 10.0.0.2', trusted).text, '10.0.0.3');
    assert.equal(clientAddress('127.0.0.1', undefined, trusted).text, '127.0.0.1');
  });
});
