import { render } from 'preact';
import '../shared/styles.css';
import './panel.css';
import { Panel } from './panel.js';

render(<Panel />, document.getElementById('root')!);
