import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { displayValue, isUuid } from './format.js';
import { useI18n } from './i18n.js';
import { qrDataUrl } from './qr.js';
import type { Schemas } from './schemas.js';

/**
 * A layout as the service draws it: a saved one, or a draft (whose layout_ref is null when it was given none).
 * The components below read only its elements.
 */
export type RenderedLayout = Schemas['RenderedLayoutView'] | Schemas['RenderedDraftLayoutView'];

/**
 * A layout element as the service renders it: the element as configured plus `value` resolved from its path.
 * The generated type leaves every field unknown (`type` too), so each is checked where it is read.
 */
export type RenderedElement = NonNullable<Schemas['RenderedLayoutView']['elements']>[number];

const ICONS: Record<string, string> = {
  warning: '⚠',
  alert: '⚠',
  danger: '⛔',
  error: '⛔',
  stop: '⛔',
  info: 'ℹ',
  check: '✓',
  success: '✓',
  ok: '✓',
  clock: '⏱',
  time: '⏱',
  truck: '🚚',
  lock: '🔒',
  seal: '🔒',
  scale: '⚖',
  location: '📍',
  gate: '🚧',
};

/** The icon an element names, drawn as a symbol; an unknown name still shows a mark, with the name as its title. */
function Icon({ name, fallback }: { name?: unknown; fallback: string }) {
  const key = typeof name === 'string' ? name.toLowerCase() : '';
  return (
    <span class="icon" aria-hidden="true" title={key || undefined}>
      {ICONS[key] ?? fallback}
    </span>
  );
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');
const colorClass = (color: unknown) => `color-${typeof color === 'string' ? color : 'gray'}`;

export function QrCode({ value, size = 180 }: { value: unknown; size?: number }) {
  const { t } = useI18n();
  if (value === null || value === undefined || value === '') {
    return <p class="qr qr-empty">{t('layout.noCode')}</p>;
  }
  const content = displayValue(value);
  return (
    <figure class="qr">
      <img src={qrDataUrl(content)} alt={t('layout.qrCode', { content })} data-qr={content} width={size} height={size} />
      {/* An id is for the scanner, not for people: only a code people may read or type is written under it. */}
      {!isUuid(content) && <figcaption>{content}</figcaption>}
    </figure>
  );
}

/** One element of any kind, card or ticket, drawn the same wherever it appears (driver app and panel preview). */
export function Element({ element }: { element: RenderedElement }) {
  const i18n = useI18n();
  const { t } = i18n;
  switch (element.type) {
    case 'section':
      return <h4 class="el-section">{text(element.title)}</h4>;
    case 'field':
      return (
        <div class="el-field">
          <span class="el-label">{text(element.label)}</span>
          <span class="el-value">{displayValue(element.value, i18n, element.path)}</span>
        </div>
      );
    case 'alert':
      return (
        <div class={`el-alert ${colorClass(element.color)}`} role="note">
          <Icon name={element.icon} fallback="●" />
          <span>{text(element.text)}</span>
        </div>
      );
    case 'qrcode':
      return <QrCode value={element.value} />;
    case 'divider':
      return <hr class="el-divider" />;
    case 'tag_container':
      return (
        <ul class="el-tags" aria-label={t('layout.tags')}>
          {((element.tags as { text: string; color: string }[] | undefined) ?? []).map((tag, i) => (
            <li key={i} class={`tag ${colorClass(tag.color)}`}>
              {tag.text}
            </li>
          ))}
        </ul>
      );
    case 'attention':
      return (
        <div class="el-attention" role="note">
          <Icon name={element.icon} fallback="!" />
          <strong>{text(element.text)}</strong>
        </div>
      );
    case 'instruction':
      return (
        <ol class="el-steps">
          {((element.steps as string[] | undefined) ?? []).map((step, i) => (
            <li key={i}>{step}</li>
          ))}
        </ol>
      );
    case 'text':
      return <p class="el-text">{text(element.text)}</p>;
    case 'highlight':
      return (
        <div class="el-highlight">
          <span class="el-label">{text(element.label)}</span>
          <span class="el-big">{displayValue(element.value, i18n, element.path)}</span>
        </div>
      );
    case 'highlight_grid':
      return (
        <div class="el-grid">
          {((element.items as { label: string; path?: string; value?: unknown }[] | undefined) ?? []).map((item, i) => (
            <div key={i} class="el-highlight">
              <span class="el-label">{item.label}</span>
              <span class="el-big">{displayValue(item.value, i18n, item.path)}</span>
            </div>
          ))}
        </div>
      );
    default:
      return null;
  }
}

export function Elements({ elements }: { elements: RenderedElement[] | undefined }) {
  return (
    <div class="elements">
      {(elements ?? []).map((element, i) => (
        <Element key={i} element={element} />
      ))}
    </div>
  );
}

/** A trip or appointment card: its card layout, and a button that opens the detail modal. */
export function RecordCard(props: {
  layout: RenderedLayout | null;
  title: string;
  status?: string;
  onOpen?: () => void;
  children?: ComponentChildren;
}) {
  const { t } = useI18n();
  return (
    <article class="card" aria-label={props.title}>
      <header class="card-head">
        <h3>{props.title}</h3>
        {props.status && <StatusWord status={props.status} />}
      </header>
      {props.layout ? <Elements elements={props.layout.card_layout} /> : <p class="muted">{t('layout.cardRemoved')}</p>}
      {props.children}
      {props.onOpen && (
        <button type="button" class="link-button" onClick={props.onOpen}>
          {t('layout.details')}
        </button>
      )}
    </article>
  );
}

/** A status as a word in the reader's language, coloured by the status. */
export function StatusWord({ status }: { status: string }) {
  const i18n = useI18n();
  return (
    <span class={`status status-${status.toLowerCase()}`} data-status={status}>
      {i18n.status(status)}
    </span>
  );
}

/** What the gate reads off a ticket besides its layout: the appointment's code to scan, its plate and its ref. */
export interface GatePass {
  code: string;
  plate: string | null;
  ref: string;
}

/** A ticket: the gate pass (when known) on top, then every element of its ticket layout, top to bottom. */
export function TicketView({ layout, label, pass }: { layout: RenderedLayout | null; label: string; pass?: GatePass }) {
  const { t } = useI18n();
  return (
    <article class="ticket" aria-label={label}>
      {pass && (
        <div class="gate-pass">
          <QrCode value={pass.code} size={200} />
          <dl class="gate-pass-facts">
            <div>
              <dt>{t('ticket.plate')}</dt>
              <dd class="plate">{pass.plate ?? '—'}</dd>
            </div>
            <div>
              <dt>{t('ticket.ref')}</dt>
              <dd>{pass.ref}</dd>
            </div>
          </dl>
        </div>
      )}
      {layout ? <Elements elements={layout.elements} /> : <p class="muted">{t('layout.ticketRemoved')}</p>}
    </article>
  );
}

/** A modal dialog (the native <dialog>: focus kept inside, Escape closes). */
export function Modal(props: { title: string; onClose: () => void; children: ComponentChildren }) {
  const { t } = useI18n();
  const ref = useRef<HTMLDialogElement>(null);
  // Closed by its page (unmounted): the dialog's `close` event comes a task later, and is not the person closing it.
  const gone = useRef(false);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      gone.current = true;
      dialog?.close();
    };
  }, []);
  return (
    <dialog ref={ref} class="modal" aria-label={props.title} onClose={() => gone.current || props.onClose()}>
      <header class="modal-head">
        <h2>{props.title}</h2>
        <button type="button" class="icon-button" aria-label={t('common.close')} onClick={props.onClose}>
          ✕
        </button>
      </header>
      {props.children}
    </dialog>
  );
}
