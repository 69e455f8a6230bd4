// Entry point of the bundle (scripts/build-web.mjs → dist/web/assets/main-<hash>.js).
import { render } from 'preact';
import { App } from './app.js';
import './styles.css';

render(<App />, document.getElementById('app')!);
