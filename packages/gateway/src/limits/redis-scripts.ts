/**
 * The Redis limiter's two scripts. Each runs atomically on the server: checking every rule and
 * counting the request happen in one step, so instances sharing the server can never admit
 * more than a limit between them (no read-then-write). Time is the server's own (TIME), so
 * instances with skewed clocks still agree on the window.
 *
 * Keys per rule: requests (sorted set of ids by time), tokens (sorted set of `id|tokens` by
 * time), token sum (a counter kept equal to the sum of that set), running (sorted set of ids
 * by lease end). Return codes: -1 is "never" for a retry time.
 */

/** KEYS: 4 per rule. ARGV: window, id, tokens, lease, concurrency retry, then rpm tpm conc per rule. */
export const ADMIT_SCRIPT = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local window, id, tokens = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local lease, concurrencyRetry = tonumber(ARGV[4]), tonumber(ARGV[5])
local rules, edge = #KEYS / 4, now - window
local deniedRule, deniedDimension, retry = -1, 0, 0
local function deny(rule, dimension, after)
  if deniedRule >= 0 and (retry == -1 or (after ~= -1 and after <= retry)) then return end
  deniedRule, deniedDimension, retry = rule, dimension, after
end
local function tokensOf(member) return tonumber(string.match(member, '|(%d+)$')) end
for i = 0, rules - 1 do
  local rk, tk, sk, ck = KEYS[i * 4 + 1], KEYS[i * 4 + 2], KEYS[i * 4 + 3], KEYS[i * 4 + 4]
  local rpm, tpm, conc = tonumber(ARGV[6 + i * 3]), tonumber(ARGV[7 + i * 3]), tonumber(ARGV[8 + i * 3])
  if rpm >= 0 then
    redis.call('ZREMRANGEBYSCORE', rk, '-inf', edge)
    local count = redis.call('ZCARD', rk)
    if count + 1 > rpm then
      local after = -1
      if rpm > 0 then
        local freeing = redis.call('ZRANGE', rk, count - rpm, count - rpm, 'WITHSCORES')
        after = tonumber(freeing[2]) + window - now
      end
      deny(i, 1, after)
    end
  end
  if tpm >= 0 then
    local expired = redis.call('ZRANGEBYSCORE', tk, '-inf', edge)
    if #expired > 0 then
      local freed = 0
      for _, member in ipairs(expired) do freed = freed + tokensOf(member) end
      redis.call('ZREMRANGEBYSCORE', tk, '-inf', edge)
      redis.call('DECRBY', sk, freed)
    end
    local sum = tonumber(redis.call('GET', sk) or '0')
    if sum + tokens > tpm then
      local after = -1
      if tokens <= tpm then
        after = concurrencyRetry
        local entries = redis.call('ZRANGE', tk, 0, -1, 'WITHSCORES')
        local freed = 0
        for j = 1, #entries, 2 do
          freed = freed + tokensOf(entries[j])
          if sum - freed + tokens <= tpm then
            after = tonumber(entries[j + 1]) + window - now
            break
          end
        end
      end
      deny(i, 2, after)
    end
  end
  if conc >= 0 then
    redis.call('ZREMRANGEBYSCORE', ck, '-inf', now)
    if redis.call('ZCARD', ck) + 1 > conc then
      local after = -1
      if conc > 0 then after = concurrencyRetry end
      deny(i, 3, after)
    end
  end
end
if deniedRule < 0 then
  for i = 0, rules - 1 do
    local rk, tk, sk, ck = KEYS[i * 4 + 1], KEYS[i * 4 + 2], KEYS[i * 4 + 3], KEYS[i * 4 + 4]
    local rpm, tpm, conc = tonumber(ARGV[6 + i * 3]), tonumber(ARGV[7 + i * 3]), tonumber(ARGV[8 + i * 3])
    if rpm >= 0 then
      redis.call('ZADD', rk, now, id)
      redis.call('PEXPIRE', rk, window)
    end
    if tpm >= 0 and tokens > 0 then
      redis.call('ZADD', tk, now, id .. '|' .. tokens)
      redis.call('INCRBY', sk, tokens)
      redis.call('PEXPIRE', tk, window + lease)
      redis.call('PEXPIRE', sk, window + lease)
    end
    if conc >= 0 then
      redis.call('ZADD', ck, now + lease, id)
      redis.call('PEXPIRE', ck, lease)
    end
  end
end
local out = { deniedRule < 0 and 1 or 0, now, deniedRule, deniedDimension, retry }
for i = 0, rules - 1 do
  local rk, tk, sk = KEYS[i * 4 + 1], KEYS[i * 4 + 2], KEYS[i * 4 + 3]
  local newestRequest = redis.call('ZRANGE', rk, -1, -1, 'WITHSCORES')
  local newestTokens = redis.call('ZRANGE', tk, -1, -1, 'WITHSCORES')
  out[#out + 1] = redis.call('ZCARD', rk)
  out[#out + 1] = newestRequest[2] and (tonumber(newestRequest[2]) + window - now) or 0
  out[#out + 1] = tonumber(redis.call('GET', sk) or '0')
  out[#out + 1] = newestTokens[2] and (tonumber(newestTokens[2]) + window - now) or 0
end
return out
`;

/** KEYS: 3 per rule (tokens, token sum, running). ARGV: id, estimate, used, admitted at. */
export const FINISH_SCRIPT = `
local id, estimate, used, at = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
for i = 0, #KEYS / 3 - 1 do
  local tk, sk, ck = KEYS[i * 3 + 1], KEYS[i * 3 + 2], KEYS[i * 3 + 3]
  redis.call('ZREM', ck, id)
  if estimate > 0 and redis.call('ZREM', tk, id .. '|' .. estimate) == 1 then
    if used > 0 then redis.call('ZADD', tk, at, id .. '|' .. used) end
    redis.call('INCRBY', sk, used - estimate)
  end
end
return 1
`;
