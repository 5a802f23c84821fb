import { definePreferenceCategories } from '@waymark/email/preference-categories';
import { categories } from '@waymark/journeys/categories';

/** This deployment's preference categories (journeys/categories.ts), checked as the runtime checks them. */
export const deploymentCategories = definePreferenceCategories(categories);
