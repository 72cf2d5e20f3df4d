import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The properties of `data` that held a secret in the answers kept before they were kept without it. */
const SECRET_FIELDS = ['api_key', 'secret', 'token'];

/**
 * Answers kept for an Idempotency-Key no longer hold secrets (docs/idempotency.md#answers-that-carry-a-secret):
 * those kept before (a new API key, a webhook's signing secret, a driver token; 24 h of them at most) lose theirs
 * here, set to null as the service now keeps them. Read and written back as JSON text, so the body keeps its
 * form (its properties in their order). Nothing to undo: the secrets are gone.
 */
export class KeptAnswersWithoutSecrets1763913600000 implements MigrationInterface {
  name = 'KeptAnswersWithoutSecrets1763913600000';

  async up(db: QueryRunner): Promise<void> {
    const rows = (await db.query(
      `SELECT caller, key, response_body FROM idempotency_keys
        WHERE response_status < 300 AND response_body LIKE '{"success":true,%' AND response_body LIKE ANY ($1)`,
      [SECRET_FIELDS.map((field) => `%"${field}":"%`)],
    )) as { caller: string; key: string; response_body: string }[];
    for (const row of rows) {
      const body = JSON.parse(row.response_body) as { data?: Record<string, unknown> };
      if (!body.data || typeof body.data !== 'object') continue;
      for (const field of SECRET_FIELDS) if (typeof body.data[field] === 'string') body.data[field] = null;
      await db.query(`UPDATE idempotency_keys SET response_body = $3 WHERE caller = $1 AND key = $2`, [
        row.caller,
        row.key,
        JSON.stringify(body),
      ]);
    }
  }

  async down(): Promise<void> {}
}
