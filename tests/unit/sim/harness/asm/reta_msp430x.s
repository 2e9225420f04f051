; An MSP430X function that returns with RETA (20-bit return address, as after CALLA).
        .text
        .global seven_reta
        .type   seven_reta, @function
seven_reta:
        mov     #7, r12
        reta
        .size   seven_reta, .-seven_reta
