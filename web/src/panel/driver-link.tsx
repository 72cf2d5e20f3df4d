import { useEffect, useState } from 'preact/hooks';
import type { Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';
import { explainError } from '../shared/explain.js';
import { formatTaxId } from '../shared/format.js';
import { useI18n } from '../shared/i18n.js';
import { qrDataUrl } from '../shared/qr.js';

/**
 * A sign-in link to the driver app for this record's driver (a driver token of this account, in the link's
 * fragment, which no server sees), as text and as a QR code to scan with the driver's phone, with the short sign-in
 * code to type instead; and revoking them.
 */
export function DriverLink(props: { credential: Credential; taxId: string }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [link, setLink] = useState<{ url: string; expires_at: string; code?: string } | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  useEffect(() => {
    setLink(null);
    setMessage(null);
  }, [props.taxId]);
  const client = gateClient(props.credential);
  const driver = { params: { path: { tax_id: props.taxId } } };
  const make = async () => {
    try {
      const { token, expires_at, code } = await dataOf(client.POST('/api/v1/drivers/{tax_id}/tokens', driver));
      // Never a replay (the panel sends no Idempotency-Key): the token is there.
      setLink({ url: `${location.origin}/app#token=${token!}`, expires_at, code });
      setMessage(null);
    } catch (error) {
      setMessage({ ok: false, text: explainError(i18n, error) });
    }
  };
  const revoke = async () => {
    try {
      await dataOf(client.DELETE('/api/v1/drivers/{tax_id}/tokens', driver));
      setLink(null);
      setMessage({ ok: true, text: t('board.link.revoked', { taxId: formatTaxId(props.taxId) }) });
    } catch (error) {
      setMessage({ ok: false, text: explainError(i18n, error) });
    }
  };
  return (
    <section class="driver-link" aria-label={t('board.link.region', { taxId: formatTaxId(props.taxId) })}>
      <h3>{t('board.link.title')}</h3>
      <div class="row">
        <button type="button" onClick={() => void make()}>
          {t('board.link.make', { taxId: formatTaxId(props.taxId) })}
        </button>
        <button type="button" class="danger" onClick={() => void revoke()}>
          {t('board.link.revoke')}
        </button>
      </div>
      {link && (
        <div class="row link-shown">
          <img src={qrDataUrl(link.url)} alt={t('board.link.qr')} width={180} height={180} />
          {link.code && (
            <p class="sign-in-code">
              <span>{t('board.link.code')}</span>
              <strong data-code={link.code}>{spaced(link.code)}</strong>
              <span class="muted">{t('board.link.codeHint')}</span>
            </p>
          )}
          <p>
            <a href={link.url} target="_blank" rel="noopener noreferrer">
              {t('board.link.link')}
            </a>{' '}
            <span class="muted">{t('board.link.validUntil', { time: i18n.time(link.expires_at) })}</span>
          </p>
          <button type="button" class="print-button" onClick={printCode}>
            {t('signInPrint.print')}
          </button>
        </div>
      )}
      {message && (
        <p class={message.ok ? 'success' : 'error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}
    </section>
  );
}

/**
 * Prints the sign-in code and its QR code alone (the panel's print styles keep only `.link-shown` while the body is
 * marked), for the driver to take to the truck.
 */
function printCode() {
  document.body.dataset.print = 'sign-in';
  const done = () => {
    delete document.body.dataset.print;
    window.removeEventListener('afterprint', done);
  };
  window.addEventListener('afterprint', done);
  window.print();
}

/** A sign-in code read aloud or typed more easily in two groups: ABCD EFGH. */
const spaced = (code: string) => (code.length === 8 ? `${code.slice(0, 4)} ${code.slice(4)}` : code);
