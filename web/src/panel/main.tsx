import { render } from 'preact';
import '../shared/styles.css';
import './panel.css';
import { I18nProvider, startWithLanguage } from '../shared/i18n.js';
import { Panel } from './panel.js';

void startWithLanguage((translator) =>
  render(
    <I18nProvider initial={translator} title="panel.title">
      <Panel />
    </I18nProvider>,
    document.getElementById('root')!,
  ),
);
