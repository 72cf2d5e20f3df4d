import { useState } from 'preact/hooks';
import { useI18n } from '../shared/i18n.js';

/** A Copy button for a text (a key, a link): the clipboard of the browser, and a word that it worked. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const { t } = useI18n();
  const [copied, setCopied] = useState<boolean | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <>
      <button type="button" aria-label={label} onClick={() => void copy()}>
        {t('common.copy')}
      </button>
      <span role="status" class="muted">
        {copied === true ? t('common.copiedNow') : copied === false ? t('common.copyFailed') : ''}
      </span>
    </>
  );
}

/** A secret (a new key) shown once, with its copy button and the button that hides it for good. */
export function ShownOnce(props: { title: string; value: string; copyLabel: string; onDone: () => void }) {
  const { t } = useI18n();
  return (
    <section class="notice" role="region" aria-label={props.title}>
      <h2>{props.title}</h2>
      <p>{t('common.shownOnce')}</p>
      <code class="secret">{props.value}</code>
      <div class="row">
        <CopyButton text={props.value} label={props.copyLabel} />
        <button type="button" onClick={props.onDone}>
          {t('common.copied')}
        </button>
      </div>
    </section>
  );
}
