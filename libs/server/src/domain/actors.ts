/** Who the audit names for changes made with the owner token or in process (`server.admin`). */
export const OWNER_ACTOR = 'admin';
