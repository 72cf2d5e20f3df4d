import { render } from 'preact';
import '../shared/styles.css';
import './app.css';
import { I18nProvider, startWithLanguage } from '../shared/i18n.js';
import { DriverApp } from './driver-app.js';
import { takeTokenFromLink } from './token.js';

const linked = takeTokenFromLink();
void startWithLanguage((translator) =>
  render(
    <I18nProvider initial={translator} title="app.pageTitle">
      <DriverApp linked={linked} />
    </I18nProvider>,
    document.getElementById('root')!,
  ),
);

// The installable app: its service worker keeps the page and its assets for use offline (the records are kept by the page).
if ('serviceWorker' in navigator) {
  void navigator.serviceWorker.register('/app/sw.js', { scope: '/app' }).catch(() => undefined);
}
