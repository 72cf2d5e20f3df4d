import type TestAgent from 'supertest/lib/agent.js';
import { TEST_ADMIN_KEY } from '../setup/test-app.js';

export interface TestAccount {
  id: string;
  kind: 'carrier' | 'terminal' | 'admin';
  name: string;
  key: string;
  keyId: string;
}

let counter = 0;

export async function newAccount(http: TestAgent, kind: TestAccount['kind'], extra: Record<string, unknown> = {}): Promise<TestAccount> {
  const name = `${kind} ${++counter}`;
  const response = await http
    .post('/api/v1/admin/accounts')
    .set('X-API-Key', TEST_ADMIN_KEY)
    .send({ kind, name, ...extra });
  if (response.status !== 201) throw new Error(`account creation failed: ${response.status} ${JSON.stringify(response.body)}`);
  const data = response.body.data;
  return { id: data.id, kind, name, key: data.api_key, keyId: data.api_key_id };
}

export const newTerminal = (http: TestAgent, extra?: Record<string, unknown>) => newAccount(http, 'terminal', extra);
export const newCarrier = (http: TestAgent) => newAccount(http, 'carrier');
