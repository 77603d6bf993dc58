import type { Generated } from 'kysely';

/**
 * Kysely table types of the energy asset service. Portability rules of the project: timestamps
 * are ISO-8601 UTC text, booleans integers 0/1, ids integer autoincrement / identity.
 */
export interface UsersTable {
  id: Generated<number>;
  email: string;
  password_hash: string;
  created_at: string;
  updated_at: string;
}

export interface ApiTokensTable {
  id: Generated<number>;
  user_id: number;
  /** sha256 of the token, hex: the token itself is never stored. */
  token_hash: string;
  created_at: string;
}

export interface BuildingsTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  street_address: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  country: string | null;
  floor_area: number | null;
  year_built: number | null;
  created_at: string;
  updated_at: string;
}

export interface ElevatorsTable {
  id: Generated<number>;
  building_id: number;
  name: string;
  manufacturer: string | null;
  capacity_lbs: number | null;
  floors_served: number | null;
  created_at: string;
  updated_at: string;
}

export interface OperationsTable {
  id: Generated<number>;
  building_id: number;
  elevator_id: number | null;
  name: string | null;
  misc_electric_load: number | null;
  misc_gas_load: number | null;
  total_occupants: number | null;
  setpoint_heating: number | null;
  setpoint_cooling: number | null;
  weekdays_open: number | null;
  weekday_open_time: string | null;
  weekday_close_time: string | null;
  saturdays_open: number | null;
  saturday_open_time: string | null;
  saturday_close_time: string | null;
  sundays_open: number | null;
  sunday_open_time: string | null;
  sunday_close_time: string | null;
  created_at: string;
  updated_at: string;
}

export interface FanControlsTable {
  id: Generated<number>;
  display_name: string;
  service_name: string;
  sort_order: number;
  is_default: number;
  created_at: string;
  updated_at: string;
}

export interface RoofTypesTable {
  id: Generated<number>;
  display_name: string;
  service_name: string;
  sort_order: number;
  created_at: string;
  updated_at: string;
}

export interface EnergyDatabase {
  users: UsersTable;
  api_tokens: ApiTokensTable;
  buildings: BuildingsTable;
  elevators: ElevatorsTable;
  operations: OperationsTable;
  fan_controls: FanControlsTable;
  roof_types: RoofTypesTable;
}
