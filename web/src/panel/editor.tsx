import { useState } from 'preact/hooks';
import { ApiError, type Credential, type Issue, issuesOf } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { LANGUAGE_NAMES, type MessageKey, useI18n } from '../shared/i18n.js';
import type { Schemas } from '../shared/schemas.js';
import {
  ALERT_COLORS,
  fallbackOf,
  type FieldKind,
  kindsOf,
  type LayoutSet,
  otherLanguages,
  partsOf,
  textOf,
  withText,
} from './elements.js';
import { Preview } from './preview.js';

/** A saved layout, as the service lists it. */
export type LayoutView = Schemas['LayoutView'];

interface DraftElement {
  id: number;
  value: Record<string, unknown>;
}

type Draft = { name: string; parts: Record<string, DraftElement[]> };

let nextId = 1;
const wrap = (value: Record<string, unknown>): DraftElement => ({ id: nextId++, value: structuredClone(value) });

function draftOf(set: LayoutSet, layout: LayoutView | null): Draft {
  const parts: Record<string, DraftElement[]> = {};
  for (const [part] of partsOf(set)) parts[part] = ((layout?.[part as keyof LayoutView] as Record<string, unknown>[]) ?? []).map(wrap);
  return { name: layout?.name ?? '', parts };
}

/** The draft as PUT takes it: its elements as edited, for the service to check (each problem comes back by its path). */
function bodyOf(draft: Draft): Schemas['PutLayoutDto'] {
  const parts = Object.entries(draft.parts).map(([part, list]) => [part, list.map((element) => element.value)]);
  return { name: draft.name.trim() || null, ...(Object.fromEntries(parts) as Omit<Schemas['PutLayoutDto'], 'name'>) };
}

/** `card_layout[2].path` → the element it belongs to and the field inside it. */
function placeOf(path: string): { part: string; index: number; field: string } | null {
  const match = /^(card_layout|modal_layout|elements)\[(\d+)\](?:\.(.+))?$/.exec(path);
  return match ? { part: match[1], index: Number(match[2]), field: match[3] ?? '' } : null;
}

/** Edits one layout: its name and every element of each part, saved with PUT; the preview beside it draws the layout as it is being edited. */
export function LayoutEditor(props: {
  credential: Credential;
  set: LayoutSet;
  layoutRef: string;
  layout: LayoutView | null;
  onSaved: () => void;
  onClose: () => void;
}) {
  const i18n = useI18n();
  const { t } = i18n;
  const { set } = props;
  const [draft, setDraft] = useState<Draft>(() => draftOf(set, props.layout));
  const [issues, setIssues] = useState<Issue[]>([]);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [dirty, setDirty] = useState(false);
  const [busy, setBusy] = useState(false);

  const change = (update: (draft: Draft) => void) => {
    setDraft((current) => {
      const next = structuredClone(current);
      update(next);
      return next;
    });
    setDirty(true);
  };

  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setMessage(null);
    try {
      await dataOf(
        gateClient(props.credential).PUT('/api/v1/layouts/{set}/{layout_ref}', {
          params: { path: { set, layout_ref: props.layoutRef } },
          body: bodyOf(draft),
        }),
      );
      setIssues([]);
      setDirty(false);
      setMessage({ ok: true, text: t('editor.saved') });
      props.onSaved();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'VALIDATION_ERROR') {
        const found = issuesOf(error);
        setIssues(found);
        setMessage({ ok: false, text: t('editor.notSaved', { count: found.length }) });
      } else {
        setMessage({ ok: false, text: explainError(i18n, error) });
      }
    } finally {
      setBusy(false);
    }
  };

  const loose = issues.filter((issue) => !placeOf(issue.path));
  return (
    <section class="editor" aria-labelledby="editor-title">
      <div class="editor-form">
        <header class="row">
          <h2 id="editor-title">
            {t(props.layout ? 'editor.edit' : 'editor.new', { set: t(`set.${set}`) })} <code>{props.layoutRef}</code>
          </h2>
          <button type="button" class="quiet" onClick={props.onClose}>
            {t('editor.back')}
          </button>
        </header>
        <form class="stack" onSubmit={(event) => void save(event)} noValidate>
          <label for="layout-name">{t('editor.name')}</label>
          <input
            id="layout-name"
            value={draft.name}
            onInput={(e) => {
              const value = e.currentTarget.value;
              change((d) => void (d.name = value));
            }}
          />
          {partsOf(set).map(([part, label, add]) => (
            <PartEditor
              key={part}
              set={set}
              part={part}
              label={t(label)}
              addLabel={t(add)}
              elements={draft.parts[part]}
              issues={issues}
              onChange={(update) => change((d) => update(d.parts[part]))}
            />
          ))}
          {loose.length > 0 && (
            <ul class="error" role="alert">
              {loose.map((issue, i) => (
                <li key={i}>
                  {issue.path || t('editor.layout')}: {issue.message}
                </li>
              ))}
            </ul>
          )}
          <div class="row sticky-actions">
            <button type="submit" class="primary" disabled={busy}>
              {busy ? t('editor.saving') : t('editor.save')}
            </button>
            {dirty && <span class="muted">{t('editor.unsaved')}</span>}
            {message && (
              <span class={message.ok ? 'success' : 'error'} role={message.ok ? 'status' : 'alert'}>
                {message.text}
              </span>
            )}
          </div>
        </form>
      </div>
      <Preview credential={props.credential} set={set} layoutRef={props.layoutRef} layout={bodyOf(draft)} />
    </section>
  );
}

function PartEditor(props: {
  set: LayoutSet;
  part: string;
  label: string;
  addLabel: string;
  elements: DraftElement[];
  issues: Issue[];
  onChange: (update: (elements: DraftElement[]) => void) => void;
}) {
  const { t } = useI18n();
  const kinds = kindsOf(props.set);
  const [kind, setKind] = useState(Object.keys(kinds)[0]);
  const { elements, onChange } = props;
  const selectId = `add-${props.part}`;
  return (
    <fieldset class="part">
      <legend>{props.label}</legend>
      {elements.length === 0 && <p class="muted">{t('editor.noElements')}</p>}
      <ol class="element-list">
        {elements.map((element, index) => (
          <li key={element.id}>
            <ElementEditor
              set={props.set}
              part={props.part}
              partLabel={props.label}
              index={index}
              count={elements.length}
              value={element.value}
              issues={props.issues.flatMap((issue) => {
                const place = placeOf(issue.path);
                return place && place.part === props.part && place.index === index ? [{ field: place.field, message: issue.message }] : [];
              })}
              onChange={(update) => onChange((list) => update(list[index].value))}
              onMove={(delta) =>
                onChange((list) => {
                  const [moved] = list.splice(index, 1);
                  list.splice(index + delta, 0, moved);
                })
              }
              onRemove={() => onChange((list) => void list.splice(index, 1))}
            />
          </li>
        ))}
      </ol>
      <div class="row">
        <label for={selectId}>{props.addLabel}</label>
        <select id={selectId} value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
          {Object.entries(kinds).map(([name, spec]) => (
            <option key={name} value={name}>
              {t(spec.label)}
            </option>
          ))}
        </select>
        <button type="button" onClick={() => onChange((list) => void list.push(wrap({ type: kind, ...kinds[kind].create(props.set, t) })))}>
          {t('editor.addElement')}
        </button>
      </div>
    </fieldset>
  );
}

function ElementEditor(props: {
  set: LayoutSet;
  part: string;
  partLabel: string;
  index: number;
  count: number;
  value: Record<string, unknown>;
  issues: { field: string; message: string }[];
  onChange: (update: (value: Record<string, unknown>) => void) => void;
  onMove: (delta: number) => void;
  onRemove: () => void;
}) {
  const { t } = useI18n();
  const type = String(props.value.type);
  const spec = kindsOf(props.set)[type];
  const kindLabel = spec ? t(spec.label) : type;
  const name = t('editor.elementName', { part: props.partLabel, n: props.index + 1 });
  const id = (field: string) => `${props.part}-${props.index}-${field}`;
  const errorsOf = (field: string) =>
    props.issues.filter((issue) => issue.field === field || issue.field.startsWith(`${field}[`) || issue.field.startsWith(`${field}.`));
  const others = props.issues.filter((issue) => !spec?.fields.some(([field]) => errorsOf(field).includes(issue)));
  return (
    <fieldset class={`element${props.issues.length ? ' has-error' : ''}`} aria-label={`${name}: ${kindLabel}`}>
      <legend>
        {props.index + 1}. {kindLabel}
      </legend>
      {spec?.fields.map(([field, label, kind]) => (
        <FieldEditor
          key={field}
          id={id(field)}
          label={t(label)}
          kind={kind}
          value={props.value[field]}
          errors={errorsOf(field)}
          onChange={(value) =>
            props.onChange((element) => {
              if (value === undefined) delete element[field];
              else element[field] = value;
            })
          }
        />
      ))}
      {others.length > 0 && (
        <ul class="error" role="alert">
          {others.map((issue, i) => (
            <li key={i}>
              {issue.field || t('editor.thisElement')}: {issue.message}
            </li>
          ))}
        </ul>
      )}
      <div class="row element-actions">
        <button type="button" aria-label={t('editor.moveUp', { name })} disabled={props.index === 0} onClick={() => props.onMove(-1)}>
          ↑ {t('editor.up')}
        </button>
        <button
          type="button"
          aria-label={t('editor.moveDown', { name })}
          disabled={props.index === props.count - 1}
          onClick={() => props.onMove(1)}
        >
          ↓ {t('editor.down')}
        </button>
        <button type="button" class="danger" aria-label={t('editor.removeNamed', { name })} onClick={props.onRemove}>
          {t('editor.remove')}
        </button>
      </div>
    </fieldset>
  );
}

function IssueList({ id, errors }: { id: string; errors: { field: string; message: string }[] }) {
  if (errors.length === 0) return null;
  return (
    <ul id={id} class="error field-error" role="alert">
      {errors.map((issue, i) => (
        <li key={i}>{issue.message}</li>
      ))}
    </ul>
  );
}

/**
 * A text drivers read, in the panel's language: a string is edited as it is; of a text written in several languages
 * only the panel's language is edited, and the others are kept (and named below it).
 */
function TextInput(props: { id: string; value: unknown; onChange: (value: unknown) => void; describedBy?: string; invalid?: boolean }) {
  const { t, language } = useI18n();
  const others = otherLanguages(props.value, language);
  const fallback = fallbackOf(props.value, language);
  const noteId = `${props.id}-languages`;
  const described = [props.describedBy, others.length ? noteId : undefined].filter(Boolean).join(' ') || undefined;
  return (
    <>
      <input
        id={props.id}
        lang={others.length ? language : undefined}
        value={textOf(props.value, language)}
        placeholder={fallback ?? undefined}
        aria-invalid={props.invalid || undefined}
        aria-describedby={described}
        onInput={(e) => props.onChange(withText(props.value, language, e.currentTarget.value))}
      />
      {others.length > 0 && (
        <span id={noteId} class="muted languages-note">
          {fallback !== null
            ? t('editor.notInLanguage', { languages: others.map((other) => LANGUAGE_NAMES[other]).join(', '), text: fallback })
            : t('editor.otherLanguages', { languages: others.map((other) => LANGUAGE_NAMES[other]).join(', ') })}
        </span>
      )}
    </>
  );
}

function FieldEditor(props: {
  id: string;
  label: string;
  kind: FieldKind;
  value: unknown;
  errors: { field: string; message: string }[];
  onChange: (value: unknown) => void;
}) {
  const { t } = useI18n();
  const colorName = (color: string) => t(`color.${color}` as MessageKey);
  const { id, label, kind, value, errors, onChange } = props;
  const errorId = `${id}-error`;
  const invalid = errors.length > 0;
  const described = invalid ? errorId : undefined;
  switch (kind) {
    case 'text':
      return (
        <div class="stack field-editor">
          <label for={id}>{label}</label>
          <TextInput id={id} value={value} onChange={onChange} describedBy={described} invalid={invalid} />
          <IssueList id={errorId} errors={errors} />
        </div>
      );
    case 'optional-text':
    case 'path':
      return (
        <div class="stack field-editor">
          <label for={id}>{label}</label>
          <input
            id={id}
            value={typeof value === 'string' ? value : ''}
            spellcheck={kind !== 'path'}
            placeholder={kind === 'path' ? t('editor.pathExample') : undefined}
            aria-invalid={invalid || undefined}
            aria-describedby={described}
            onInput={(e) => {
              const text = e.currentTarget.value;
              onChange(kind === 'optional-text' && text === '' ? undefined : text);
            }}
          />
          <IssueList id={errorId} errors={errors} />
        </div>
      );
    case 'color':
      return (
        <div class="stack field-editor">
          <label for={id}>{label}</label>
          <select
            id={id}
            value={typeof value === 'string' ? value : ''}
            aria-invalid={invalid || undefined}
            onChange={(e) => onChange(e.currentTarget.value)}
          >
            {ALERT_COLORS.map((color) => (
              <option key={color} value={color}>
                {colorName(color)}
              </option>
            ))}
          </select>
          <IssueList id={errorId} errors={errors} />
        </div>
      );
    case 'steps': {
      const steps = Array.isArray(value) ? (value as unknown[]) : [];
      return (
        <div class="stack field-editor">
          <span class="field-title">{label}</span>
          {steps.map((step, i) => (
            <div class="row" key={i}>
              <label for={`${id}-${i}`}>{t('editor.step', { n: i + 1 })}</label>
              <TextInput id={`${id}-${i}`} value={step} onChange={(next) => onChange(steps.map((s, j) => (j === i ? next : s)))} />
              <button
                type="button"
                aria-label={t('editor.removeStep', { n: i + 1 })}
                onClick={() => onChange(steps.filter((_, j) => j !== i))}
              >
                ✕
              </button>
            </div>
          ))}
          <button type="button" onClick={() => onChange([...steps, ''])}>
            {t('editor.addStep')}
          </button>
          <IssueList id={errorId} errors={errors} />
        </div>
      );
    }
    case 'tags':
    case 'items': {
      const rows = Array.isArray(value) ? (value as Record<string, unknown>[]) : [];
      const [first, second] = kind === 'tags' ? (['text', 'color'] as const) : (['label', 'path'] as const);
      const set = (i: number, key: string, text: unknown) => onChange(rows.map((row, j) => (j === i ? { ...row, [key]: text } : row)));
      const plain = (row: Record<string, unknown>, key: string) => {
        const field = row[key];
        return typeof field === 'string' ? field : '';
      };
      return (
        <div class="stack field-editor">
          <span class="field-title">{label}</span>
          {rows.map((row, i) => (
            <div class="row" key={i}>
              <label for={`${id}-${i}-${first}`}>{t(kind === 'tags' ? 'editor.tagText' : 'editor.itemLabel', { n: i + 1 })}</label>
              <TextInput id={`${id}-${i}-${first}`} value={row[first] ?? ''} onChange={(next) => set(i, first, next)} />
              <label for={`${id}-${i}-${second}`}>{t(kind === 'tags' ? 'editor.tagColor' : 'editor.itemPath')}</label>
              {kind === 'tags' ? (
                <select
                  id={`${id}-${i}-${second}`}
                  value={plain(row, second) || 'blue'}
                  onChange={(e) => set(i, second, e.currentTarget.value)}
                >
                  {ALERT_COLORS.map((color) => (
                    <option key={color} value={color}>
                      {colorName(color)}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  id={`${id}-${i}-${second}`}
                  value={plain(row, second)}
                  spellcheck={false}
                  onInput={(e) => set(i, second, e.currentTarget.value)}
                />
              )}
              <button
                type="button"
                aria-label={t(kind === 'tags' ? 'editor.removeTag' : 'editor.removeItem', { n: i + 1 })}
                onClick={() => onChange(rows.filter((_, j) => j !== i))}
              >
                ✕
              </button>
            </div>
          ))}
          <button
            type="button"
            onClick={() =>
              onChange([...rows, kind === 'tags' ? { text: t('new.tag'), color: 'blue' } : { label: t('new.label'), path: 'content.gate' }])
            }
          >
            {t(kind === 'tags' ? 'editor.addTag' : 'editor.addItem')}
          </button>
          <IssueList id={errorId} errors={errors} />
        </div>
      );
    }
  }
}
