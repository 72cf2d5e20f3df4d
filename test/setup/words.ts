import type { Page } from 'playwright-core';

/** The English a Brazilian reader must not meet ("check-in", "ticket" and "container" are Brazilian usage). */
export const ENGLISH =
  /\b(appointments?|drivers?|plates?|gate pass|gates?|lanes?|bays?|tax id|licen[cs]e|import|created|updated|deleted|accepted|rejected|requested|valid|show|follow|stop|arrive|inside|windows?)\b/i;
export const ISO_TIMESTAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d/;
export const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
export const BARE_CPF = /(?<![\d.])\d{11}(?![\d.])/;

/**
 * Every text node of the page (or of the element `root` selects) that a person sees (its element rendered and visible),
 * trimmed, empty ones left out; with the chosen option of each select, and the page's title.
 */
export async function visibleTexts(page: Page, root = 'body'): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const root = document.querySelector(${JSON.stringify(root)});
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const texts = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const element = node.parentElement;
      const text = node.textContent.trim();
      if (!text || !element || element.closest('script, style, .visually-hidden, option')) continue;
      if (!element.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
      texts.push(text);
    }
    for (const select of root.querySelectorAll('select')) {
      if (select.checkVisibility() && select.selectedOptions[0]) texts.push(select.selectedOptions[0].textContent.trim());
    }
    document.title && texts.push(document.title);
    return texts;
  })()`);
}

/** What of those a Brazilian reader should not see. */
export const offending = (texts: string[]) =>
  texts.filter((text) => ENGLISH.test(text) || ISO_TIMESTAMP.test(text) || UUID.test(text) || BARE_CPF.test(text));
