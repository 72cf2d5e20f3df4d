import type { Issue } from '../shared/api.js';

/** A field's problems as the API named them, read by screen readers as they appear. */
export function Issues({ id, issues }: { id?: string; issues: Issue[] }) {
  if (issues.length === 0) return null;
  return (
    <div id={id} class="error issues" role="alert">
      <ul>
        {issues.map((issue, i) => (
          <li key={i}>{issue.message}</li>
        ))}
      </ul>
    </div>
  );
}

/** A labelled text input of the panel's forms, its hint and problems described to assistive technology. */
export function TextField(props: {
  id: string;
  label: string;
  value: string;
  issues: Issue[];
  type?: 'text' | 'number' | 'datetime-local';
  inputMode?: 'numeric';
  placeholder?: string;
  hint?: string;
  onInput: (value: string) => void;
}) {
  const issuesId = `${props.id}-issues`;
  const hintId = `${props.id}-hint`;
  const described = [props.hint ? hintId : '', props.issues.length ? issuesId : ''].join(' ').trim() || undefined;
  return (
    <div class="stack">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        // tsc needs the assertion: Preact types an input's props as a union told apart by `type`, which a value of
        // several types does not fit (the lint rule reads the attribute alone).
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
        type={(props.type ?? 'text') as 'text'}
        value={props.value}
        inputMode={props.inputMode}
        placeholder={props.placeholder}
        step={props.type === 'number' ? 'any' : undefined}
        autocomplete="off"
        spellcheck={false}
        aria-invalid={props.issues.length > 0 || undefined}
        aria-describedby={described}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
      {props.hint && (
        <span id={hintId} class="muted">
          {props.hint}
        </span>
      )}
      <Issues id={issuesId} issues={props.issues} />
    </div>
  );
}
