-- The principal's bitstring variable ({name}) on another cursor, from its text ($1; NULL: sees nothing).
SET VARIABLE {name} = $1::BIT;
