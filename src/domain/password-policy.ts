// The one rule a password must pass, wherever it is set (the CLI, ADMIN_PASSWORD).

export const passwordPolicy = { minLength: 8, maxLength: 1024 } as const

/** Why the password is refused, or undefined when it is acceptable. Length counts code points. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length
  if (length < passwordPolicy.minLength || length > passwordPolicy.maxLength) {
    return `a password must have ${passwordPolicy.minLength} to ${passwordPolicy.maxLength} characters`
  }
  return undefined
}
