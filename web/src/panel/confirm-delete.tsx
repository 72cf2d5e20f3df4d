/**
 * A delete in two steps: a Delete button (named `label` for screen readers) that, once pressed (`asking`), gives
 * way to the confirming button (`confirm`) and a Keep it button.
 */
export function ConfirmDelete(props: {
  asking: boolean;
  label: string;
  confirm: string;
  onAsk: () => void;
  onConfirm: () => void;
  onKeep: () => void;
}) {
  return props.asking ? (
    <>
      <button type="button" class="danger" onClick={props.onConfirm}>
        {props.confirm}
      </button>
      <button type="button" onClick={props.onKeep}>
        Keep it
      </button>
    </>
  ) : (
    <button type="button" class="danger" aria-label={props.label} onClick={props.onAsk}>
      Delete
    </button>
  );
}
