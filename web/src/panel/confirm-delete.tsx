import { useI18n } from '../shared/i18n.js';

/**
 * A delete (or a revocation) in two steps: a Delete button (named `label` for screen readers) that, once pressed (`asking`), gives
 * way to the confirming button (`confirm`) and a Keep it button.
 */
export function ConfirmDelete(props: {
  asking: boolean;
  label: string;
  confirm: string;
  onAsk: () => void;
  onConfirm: () => void;
  onKeep: () => void;
  /** The first button's word (Delete by default; Revoke for a key). */
  action?: string;
}) {
  const { t } = useI18n();
  return props.asking ? (
    <>
      <button type="button" class="danger" onClick={props.onConfirm}>
        {props.confirm}
      </button>
      <button type="button" onClick={props.onKeep}>
        {t('common.keepIt')}
      </button>
    </>
  ) : (
    <button type="button" class="danger" aria-label={props.label} onClick={props.onAsk}>
      {props.action ?? t('common.delete')}
    </button>
  );
}
