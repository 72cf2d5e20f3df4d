import type { Page } from 'playwright-core';

/**
 * The English a Brazilian reader must not meet on the pages, in the browser tests in pt-BR ("check-in", "ticket" and
 * "container" are Brazilian usage); nor ISO timestamps, UUIDs or unformatted CPFs.
 */
const ENGLISH =
  /\b(appointments?|drivers?|plates?|gate pass|gates?|lanes?|bays?|tax id|licen[cs]e|import|created|updated|deleted|accepted|rejected|requested|valid|show|follow|stop|arrive|inside|windows?)\b/i;
const ISO_TIMESTAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d/;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const BARE_CPF = /(?<![\d.])\d{11}(?![\d.])/;

/** Every text node of the page that a person sees (its element rendered and visible), trimmed, empty ones left out. */
export async function visibleTexts(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const texts = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const element = node.parentElement;
      const text = node.textContent.trim();
      if (!text || !element || element.closest('script, style, .visually-hidden, option')) continue;
      if (!element.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
      texts.push(text);
    }
    for (const select of document.querySelectorAll('select')) {
      if (select.checkVisibility() && select.selectedOptions[0]) texts.push(select.selectedOptions[0].textContent.trim());
    }
    document.title && texts.push(document.title);
    return texts;
  })()`);
}

/** What of those a Brazilian reader should not see. */
export const offending = (texts: string[]) =>
  texts.filter((text) => ENGLISH.test(text) || ISO_TIMESTAMP.test(text) || UUID.test(text) || BARE_CPF.test(text));
