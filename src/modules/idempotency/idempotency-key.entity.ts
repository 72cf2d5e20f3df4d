import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One Idempotency-Key of one caller (docs/idempotency.md): claimed by the first request that sends it, then
 * holding that request's answer until `expires_at`. While the request runs the answer columns are null and
 * `instance_id` names the service instance running it.
 */
@Entity('idempotency_keys')
@Index('idempotency_keys_expires_idx', ['expiresAt'])
export class IdempotencyKey {
  /** `account:<id>`, `admin:bootstrap` or `driver:<driver id>:<partner id>`: whose key it is. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'idempotency_keys_pkey' })
  caller: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'idempotency_keys_pkey' })
  key: string;

  /** SHA-256 of the method, the path and the JSON of the body of the first request. */
  @Column({ type: 'bytea' })
  fingerprint: Buffer;

  @Column({ name: 'instance_id', type: 'uuid', nullable: true })
  instanceId: string | null;

  @Column({ name: 'claimed_at', type: 'timestamptz', default: () => 'now()' })
  claimedAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  /** The kept answer; null while the first request runs. */
  @Column({ name: 'response_status', type: 'smallint', nullable: true })
  responseStatus: number | null;

  @Column({ name: 'response_type', type: 'text', nullable: true })
  responseType: string | null;

  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody: string | null;
}
