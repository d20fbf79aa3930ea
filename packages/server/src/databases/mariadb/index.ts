import type { EngineProfile } from '../engine.js';
import { mysql } from '../mysql/index.js';

/** MariaDB speaks the MySQL protocol; introspection tells the two apart where they differ. */
export const mariadb: EngineProfile = { ...mysql, name: 'mariadb', schemes: ['mariadb'] };
