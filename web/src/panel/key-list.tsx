import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { explainError } from '../shared/explain.js';
import { useI18n } from '../shared/i18n.js';
import { ConfirmDelete } from './confirm-delete.js';
import { ShownOnce } from './shown-once.js';

/** A key as both lists show it. */
interface ListedKey {
  id: string;
  name?: string | null;
}

/** The routes of one list of keys: the account's, or a person's own. */
export interface KeyRoutes<K, B> {
  list(): Promise<K[]>;
  make(body: B): Promise<{ api_key?: string | null }>;
  revoke(id: string): Promise<unknown>;
}

/**
 * The state and actions of a list of API keys (loaded at once, made with a name and shown once, revoked after a
 * confirmation), shared by the account's keys and a person's own: `notices` draws the new key and any problem,
 * `revokeCell` a row's revoke button.
 */
export function useKeyList<K extends ListedKey, B extends { name: string }>(routes: KeyRoutes<K, B>) {
  const i18n = useI18n();
  const { t } = i18n;
  const [keys, setKeys] = useState<K[] | null>(null);
  const [shown, setShown] = useState<{ name: string; key: string } | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const load = () =>
    routes.list().then(
      (data) => setKeys(data),
      (error) => setProblem(explainError(i18n, error)),
    );
  useEffect(() => void load(), []);

  /** Makes a key of `body`; true when made (the form may clear). */
  const create = async (body: B): Promise<boolean> => {
    try {
      const made = await routes.make(body);
      setShown({ name: body.name, key: made.api_key! });
      setProblem(null);
      void load();
      return true;
    } catch (error) {
      setProblem(explainError(i18n, error));
      return false;
    }
  };
  const revoke = async (key: K) => {
    try {
      await routes.revoke(key.id);
      setConfirming(null);
      void load();
    } catch (error) {
      setProblem(explainError(i18n, error));
    }
  };

  const notices: ComponentChildren = (
    <>
      {shown && (
        <ShownOnce
          title={t('keys.new.title', { name: shown.name })}
          value={shown.key}
          copyLabel={t('keys.copy')}
          onDone={() => setShown(null)}
        />
      )}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </>
  );
  const revokeCell = (key: K) => (
    <ConfirmDelete
      asking={confirming === key.id}
      action={t('keys.revoke')}
      label={t('keys.revokeNamed', { name: key.name ?? key.id })}
      confirm={t('keys.revokeConfirm', { name: key.name ?? key.id })}
      onAsk={() => setConfirming(key.id)}
      onConfirm={() => void revoke(key)}
      onKeep={() => setConfirming(null)}
    />
  );
  return { keys, create, notices, revokeCell };
}
