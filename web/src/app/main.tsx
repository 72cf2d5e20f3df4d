import { render } from 'preact';
import '../shared/styles.css';
import './app.css';
import { DriverApp } from './driver-app.js';
import { takeTokenFromLink } from './token.js';

takeTokenFromLink();
render(<DriverApp />, document.getElementById('root')!);
