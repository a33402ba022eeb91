/**
 * The page's entry: a few kilobytes that ask for the access token (D-40)
 * first, then load the app. The refresh's round trip runs while the browser
 * downloads, parses and evaluates the app's code (index.html preloads it),
 * instead of after.
 */
import { freshToken } from './lib/auth';
import './styles.css';

void freshToken();
void import('./main');
