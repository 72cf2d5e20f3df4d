import type { AccountLanguage } from '../accounts/account.entity.js';
import type { Mail } from './mailer.js';

/** What an invitation says, in each language an account may choose. */
const WORDING: Record<
  AccountLanguage,
  {
    subject: (account: string) => string;
    body: (account: string, role: string) => string;
    action: string;
    expires: (date: string) => string;
    ignore: string;
  }
> = {
  'pt-BR': {
    subject: (account) => `Convite para ${account} no Gate`,
    body: (account, role) => `Você foi convidado(a) para ${account} no Gate, com o papel ${role}.`,
    action: 'Para aceitar, escolha sua senha neste link:',
    expires: (date) => `O convite vale uma vez, até ${date}.`,
    ignore: 'Se você não esperava este convite, ignore esta mensagem.',
  },
  es: {
    subject: (account) => `Invitación a ${account} en Gate`,
    body: (account, role) => `Te invitaron a ${account} en Gate, con el rol ${role}.`,
    action: 'Para aceptar, elige tu contraseña en este enlace:',
    expires: (date) => `La invitación vale una vez, hasta ${date}.`,
    ignore: 'Si no esperabas esta invitación, ignora este mensaje.',
  },
  en: {
    subject: (account) => `Your invitation to ${account} on Gate`,
    body: (account, role) => `You have been invited to ${account} on Gate, as ${role}.`,
    action: 'To accept, choose your password at this link:',
    expires: (date) => `The invitation works once, until ${date}.`,
    ignore: 'If you did not expect this invitation, ignore this message.',
  },
};

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** The invitation mail to `to`, in the account's language: plain text and HTML with the same words. */
export function invitationMail(input: {
  to: string;
  accountName: string;
  role: string;
  url: string;
  expiresAt: Date;
  language: AccountLanguage;
}): Mail {
  const words = WORDING[input.language] ?? WORDING.en;
  const date = `${input.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const lines = [words.body(input.accountName, input.role), words.action, input.url, words.expires(date), words.ignore];
  const html = [
    `<p>${escapeHtml(lines[0])}</p>`,
    `<p>${escapeHtml(words.action)}<br><a href="${escapeHtml(input.url)}">${escapeHtml(input.url)}</a></p>`,
    `<p>${escapeHtml(lines[3])}</p>`,
    `<p>${escapeHtml(words.ignore)}</p>`,
  ].join('\n');
  return {
    to: input.to,
    subject: words.subject(input.accountName),
    text: `${lines.join('\n\n')}\n`,
    html: `<!doctype html>\n<html lang="${input.language}"><body>\n${html}\n</body></html>\n`,
  };
}
