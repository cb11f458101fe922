// `npm run schema`: writes the client package's representation types from the TypeBox schemas
// (src/contract/client-types.ts says why). A unit test fails when the file and the schemas disagree.
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { clientTypesPath, clientTypesText } from '../contract/client-types.ts'

const target = fileURLToPath(new URL(`../../${clientTypesPath}`, import.meta.url))
writeFileSync(target, clientTypesText())
process.stdout.write(`wrote ${clientTypesPath}\n`)
