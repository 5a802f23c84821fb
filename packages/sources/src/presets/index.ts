import type { Source } from '../define-source';
import { analytics } from './analytics';
import { clerk } from './clerk';
import { segment } from './segment';
import { stripe } from './stripe';
import { supabase } from './supabase';

/** The presets every deployment has (each signature preset mounts only when its secret is set). */
export const builtInSources: readonly Source[] = [stripe, clerk, supabase, segment, analytics];
