import Testing
@testable import BouncerPostgres

@Suite struct PostgresDumpTests {
    /// The password goes to pg_dump in its environment, never among its arguments.
    @Test func thePasswordIsTakenOutOfTheURL() {
        let (url, password) = PostgresDump.withoutPassword("postgres://bouncer:s%40cret@db.example:5432/bouncer?sslmode=require")
        #expect(url == "postgres://bouncer@db.example:5432/bouncer?sslmode=require")
        #expect(password == "s@cret")
        #expect(PostgresDump.withoutPassword("postgres://bouncer@db:5432/bouncer") == ("postgres://bouncer@db:5432/bouncer", nil))
        #expect(PostgresDump.withoutPassword("host=db user=bouncer") == ("host=db user=bouncer", nil))
    }
}
