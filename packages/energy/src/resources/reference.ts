import type { ApiRecord, Representation } from '../format/representation.ts';

export const fanControlRepresentation: Representation = {
  element: 'fan-control',
  listElement: 'fan-controls',
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'display_name', type: 'string' },
    { name: 'service_name', type: 'string' },
    { name: 'sort_order', type: 'integer' },
    { name: 'is_default', type: 'boolean' },
    { name: 'created_at', type: 'datetime' },
    { name: 'updated_at', type: 'datetime' },
  ],
};

export const roofTypeRepresentation: Representation = {
  element: 'roof-type',
  listElement: 'roof-types',
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'display_name', type: 'string' },
    { name: 'service_name', type: 'string' },
    { name: 'sort_order', type: 'integer' },
    { name: 'created_at', type: 'datetime' },
    { name: 'updated_at', type: 'datetime' },
  ],
};

export const fanControlExample: ApiRecord = {
  id: 1,
  display_name: 'Constant Volume',
  service_name: 'constant_volume',
  sort_order: 1,
  is_default: true,
  created_at: '2013-07-26T16:09:43Z',
  updated_at: '2013-07-26T16:09:43Z',
};

export const roofTypeExample: ApiRecord = {
  id: 1,
  display_name: 'Built-up with Concrete Deck',
  service_name: 'built_up_concrete_deck',
  sort_order: 1,
  created_at: '2013-07-26T16:09:43Z',
  updated_at: '2013-07-26T16:09:43Z',
};

/** What `POST /users/authenticate` and `energyctl users add` answer (Rails' Hash#to_xml root). */
export const credentialsRepresentation: Representation = {
  element: 'hash',
  listElement: 'hashes',
  fields: [
    { name: 'user_id', type: 'integer' },
    { name: 'token', type: 'string' },
  ],
};
