/** The key of a domain's default assignment: the one every service of the domain runs unless it names another. */
export const DEFAULT_ASSIGNMENT_KEY = 'default';
