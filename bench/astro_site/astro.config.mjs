import { defineConfig } from "astro/config";

// A plain static site, as `npm create astro` gives a new user: two pages.
export default defineConfig({});
