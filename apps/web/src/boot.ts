/**
 * The page's entry: a few kilobytes that ask for the access token (D-40)
 * first, then load the app. The refresh's round trip runs while the browser
 * downloads, parses and evaluates the app's code (index.html preloads it),
 * instead of after.
 */
import { checkOnLoad } from './lib/auth';
import './styles.css';

void checkOnLoad();
void import('./main');
