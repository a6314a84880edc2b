import { createRoot } from 'react-dom/client';
import { App } from './app';
import { loadSettings } from './settings';
import './styles.css';

const root = createRoot(document.getElementById('root')!);
loadSettings()
  .then((settings) => root.render(<App settings={settings} />))
  .catch((err: unknown) => root.render(<p role="alert">{err instanceof Error ? err.message : String(err)}</p>));
