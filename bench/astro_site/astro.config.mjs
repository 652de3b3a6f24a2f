// A plain static site, as `npm create astro` gives a new user: two pages, the defaults.
export default {};
