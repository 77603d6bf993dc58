import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromAccept, negotiate, splitExtension } from './negotiate.ts';

test('splits the format extension off API paths only', () => {
  assert.deepEqual(splitExtension('/api/v1/operations/5.xml?token=a.b'), {
    url: '/api/v1/operations/5?token=a.b',
    extension: 'xml',
  });
  assert.deepEqual(splitExtension('/api/v1/fan_controls.json'), {
    url: '/api/v1/fan_controls',
    extension: 'json',
  });
  assert.deepEqual(splitExtension('/api/v1/operations/5.csv'), {
    url: '/api/v1/operations/5',
    extension: 'csv',
  });
  assert.deepEqual(splitExtension('/api/v1/operations/5'), {
    url: '/api/v1/operations/5',
    extension: undefined,
  });
  assert.deepEqual(splitExtension('/api/v1/operations/5.5'), {
    url: '/api/v1/operations/5.5',
    extension: undefined,
  });
  assert.deepEqual(splitExtension('/openapi.json'), { url: '/openapi.json', extension: undefined });
});

test('extension beats the format parameter, which beats Accept', () => {
  assert.deepEqual(negotiate({ extension: 'xml', formatParam: 'json', accept: 'application/json' }), {
    format: 'xml',
  });
  assert.deepEqual(negotiate({ extension: undefined, formatParam: 'xml', accept: 'application/json' }), {
    format: 'xml',
  });
  assert.deepEqual(negotiate({ extension: undefined, formatParam: undefined, accept: 'text/xml' }), {
    format: 'xml',
  });
  assert.deepEqual(negotiate({ extension: undefined, formatParam: undefined, accept: undefined }), {
    format: 'json',
  });
  assert.deepEqual(negotiate({ extension: 'html', formatParam: undefined, accept: undefined }), {
    unsupported: 'html',
  });
  assert.deepEqual(negotiate({ extension: undefined, formatParam: 'yaml', accept: undefined }), {
    unsupported: 'yaml',
  });
});

test('Accept: quality values, wildcards and unsupported types', () => {
  assert.deepEqual(fromAccept('application/xml;q=0.5, application/json'), { format: 'json' });
  assert.deepEqual(fromAccept('application/json;q=0.2, application/xml;q=0.9'), { format: 'xml' });
  assert.deepEqual(fromAccept('*/*'), { format: 'json' });
  assert.deepEqual(fromAccept('text/html, */*;q=0.1'), { format: 'json' });
  assert.deepEqual(fromAccept('application/xml;q=0, application/json;q=0'), {
    unsupported: 'application/xml;q=0, application/json;q=0',
  });
  assert.deepEqual(fromAccept('text/html'), { unsupported: 'text/html' });
  assert.deepEqual(fromAccept(''), { format: 'json' });
});
