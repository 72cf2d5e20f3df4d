import { render } from 'preact';
import '../shared/styles.css';

render(
  <main>
    <h1>Gate panel</h1>
  </main>,
  document.getElementById('root')!,
);
